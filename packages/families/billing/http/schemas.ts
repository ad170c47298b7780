import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice/events.js';
import { REFUND_REASONS, type RefundReason, type RefundStatus } from '../refund/events.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../subscription/events.js';
import { customerFields, itemsSchema } from './customer-fields.js';
import { resourceSchema } from '#packages/http/route-kit.js';

/**
 * The billing family's objects as its routes answer them: one module, so that the customer
 * portal answers the same shapes without importing a billing route file (no route imports
 * another route file, docs/architecture.md "Adding a family").
 */

/** What each status of an invoice means (the merchant routes, the billing family and the portal answer the same statuses). */
export const INVOICE_STATUS_WORDS: Record<InvoiceStatus, string> = {
  draft: 'Being prepared: not sent, not payable, its hosted page not served. Finalize it (PATCH its status to `open`, or send it)',
  open: 'Finalized and awaiting payment: its hosted page takes payments, the wallet can pay it',
  paid: 'Paid in full (by payments, the wallet, or marked paid out of band): final',
  void: 'Canceled: nothing more is owed, what the wallet paid went back to it. Final',
  uncollectible: 'Written off as unlikely to be paid; it still takes payments, and can still be marked paid or void',
};

/** What each status of a subscription means. */
export const SUBSCRIPTION_STATUS_WORDS: Record<SubscriptionStatus, string> = {
  trialing: 'In its free trial: nothing is invoiced until the trial ends',
  active: 'Renewing every period, no invoice past its due date',
  past_due: 'An invoice of it passed its due date unpaid; it is active again once every such invoice is paid, voided or marked uncollectible',
  canceled: 'Ended: it renews no more. Final',
};

/** The reasons a refund may give. */
export const REFUND_REASON_WORDS: Record<RefundReason, string> = {
  duplicate: 'The payer paid twice for the same thing',
  fraudulent: 'The payment was not made by the account holder',
  requested_by_customer: 'The payer asked for their money back',
};

export const REFUND_STATUS_WORDS: Record<RefundStatus, string> = {
  pending: 'Counted against the payment, its money held, until the rail that collected the payment answers',
  succeeded: 'Refunded: the money left your balance for the payer',
  failed: 'Not refunded (`failure_code` says why): nothing left your balance, and the amount is refundable again',
};

/** A line of an invoice (the billing family names the same fields in camelCase). */
const LINE_WORDS = {
  description: 'What the line is for: the product name for a price on an invoice you made, `<quantity> × <price>` for a subscription period, `Usage of <meter> from … to …` for metered usage, or the text given',
  price: 'The price the line bills (the metered price for usage), or null for a free-text line or a plain amount',
  quantity: 'How many units the line bills',
  unit_amount: 'The price of one unit, in minor units of the currency',
  amount: '`quantity` × `unit_amount`, in minor units of the currency',
  meter_key: 'For metered usage, the meter it counts (`meterKey` of the usage records); null otherwise',
};

/** A customer, as /api/v1/merchant/customers and the customer portal answer it. */
export const customerSchema = resourceSchema('customer', ['name', 'email', 'phone', 'currency', 'balance', 'metadata', 'created'], {
  name: { type: ['string', 'null'], description: 'Their full name, or null when not known' },
  email: { type: ['string', 'null'], description: 'Their e-mail address, in lower case: invoices are sent to it and it signs them in to the customer portal. Null for a customer known only by phone' },
  phone: { type: ['string', 'null'], description: 'Their phone number in international format (`+221…`), or null' },
  currency: { type: ['string', 'null'], description: "The wallet's currency (lower case), set by its first credit; null before" },
  balance: { type: 'integer', description: 'What the wallet holds, in minor units of `currency`: credits less what paid invoices' },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/** An invoice, as /api/v1/merchant/invoices and the customer portal answer it. */
export const invoiceSchema = resourceSchema('invoice', ['customer', 'status', 'currency', 'amount_due', 'amount_paid', 'due_date', 'hosted_invoice_url', 'created'], {
  customer: { type: 'string', description: 'The customer billed (`cus_…`)' },
  status: { enum: [...INVOICE_STATUSES], description: 'Where the invoice stands', 'x-enumDescriptions': INVOICE_STATUS_WORDS },
  currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case' },
  amount_due: { type: 'integer', description: 'The total of its lines, in minor units of the currency' },
  amount_paid: { type: 'integer', description: 'What payments and the wallet have paid so far, in minor units' },
  amount_remaining: { type: 'integer', description: '`amount_due` less `amount_paid`: what a payment of it is for' },
  due_date: { type: ['string', 'null'], format: 'date', description: 'The day it is due (UTC); a subscription invoice unpaid after it makes its subscription `past_due`' },
  hosted_invoice_url: { type: 'string', description: 'Its page for the customer, where they read, download and pay it (served once it is no longer a draft)' },
  subscription: { type: ['string', 'null'], description: 'The subscription it bills a period of, or null' },
  description: { type: ['string', 'null'], description: 'Your note on the invoice, or null' },
  lines: {
    type: 'array',
    description: 'What it bills, one line each',
    items: {
      type: 'object',
      properties: {
        description: { type: 'string', description: LINE_WORDS.description },
        price: { type: ['string', 'null'], description: LINE_WORDS.price },
        quantity: { type: 'integer', description: LINE_WORDS.quantity },
        unit_amount: { type: 'integer', description: LINE_WORDS.unit_amount },
        amount: { type: 'integer', description: LINE_WORDS.amount },
        meter_key: { type: ['string', 'null'], description: LINE_WORDS.meter_key },
      },
    },
  },
  period_start: { type: ['integer', 'null'], description: 'The start of the period it bills, in Unix seconds; null when it bills no period' },
  period_end: { type: ['integer', 'null'], description: 'The end of the period it bills, in Unix seconds; null when it bills no period' },
  payment_intent: { type: ['string', 'null'], description: 'The latest payment intent made to pay it, or null' },
  status_transitions: {
    type: 'object',
    description: 'When it reached each status (Unix seconds), null until it does',
    properties: {
      finalized_at: { type: ['integer', 'null'], description: 'When it became `open`' },
      paid_at: { type: ['integer', 'null'], description: 'When it became `paid`' },
      voided_at: { type: ['integer', 'null'], description: 'When it became `void`' },
      marked_uncollectible_at: { type: ['integer', 'null'], description: 'When it became `uncollectible`' },
    },
  },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/** A refund, as /api/v1/merchant/refunds answers it and the customer portal lists a payment's. */
export const refundSchema = resourceSchema('refund', ['amount', 'currency', 'payment_intent', 'status', 'reason', 'created'], {
  amount: { type: 'integer', description: 'The amount refunded, in minor units of the currency' },
  currency: { type: 'string', description: "The payment's currency, a three-letter ISO 4217 code in lower case" },
  payment_intent: { type: 'string', description: 'The payment refunded (`pi_…`)' },
  status: { enum: ['pending', 'succeeded', 'failed'], description: 'Where the refund stands', 'x-enumDescriptions': REFUND_STATUS_WORDS },
  reason: { enum: [...REFUND_REASONS, null], description: 'Why it was refunded, as given; null when none was', 'x-enumDescriptions': REFUND_REASON_WORDS },
  failure_reason: { type: ['string', 'null'], description: 'Why it failed, when it did (`insufficient_funds`: the available balance did not cover it); null otherwise' },
  failure_code: { type: ['string', 'null'], description: "Why it failed, when it did: `insufficient_funds`, or the rail's code (`payer_not_found`, `refund_not_supported`…)" },
  failure_message: { type: ['string', 'null'], description: "The rail's words for the failure, when it failed there" },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/** A subscription, as /api/v1/merchant/subscriptions and the customer portal answer it. */
export const subscriptionSchema = resourceSchema('subscription', ['customer', 'status', 'items', 'current_period_start', 'current_period_end', 'created'], {
  customer: { type: 'string', description: 'The customer subscribed (`cus_…`)' },
  status: { enum: [...SUBSCRIPTION_STATUSES], description: 'Where the subscription stands', 'x-enumDescriptions': SUBSCRIPTION_STATUS_WORDS },
  items: {
    type: 'array',
    description: 'The recurring prices it bills each period',
    items: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The item (`si_…`)' },
        price: { type: 'string', description: 'The recurring price (`price_…`)' },
        quantity: { type: 'integer', description: 'How many units of the price each period bills (metered prices bill their usage instead)' },
      },
    },
  },
  current_period_start: { type: 'integer', description: 'The start of the current period, in Unix seconds' },
  current_period_end: { type: 'integer', description: 'The end of the current period (the next renewal, or the end of the trial), in Unix seconds' },
  currency: { type: 'string', description: 'The currency of its prices, a three-letter ISO 4217 code in lower case' },
  cancel_at_period_end: { type: 'boolean', description: '`true`: it is canceled when the current period ends instead of renewing' },
  canceled_at: { type: ['integer', 'null'], description: 'When it was canceled, in Unix seconds; null unless canceled' },
  trial_end: { type: ['integer', 'null'], description: 'When its trial ends (or ended), in Unix seconds; null without a trial' },
  latest_invoice: { type: ['string', 'null'], description: 'The last invoice it issued, or null (a trial issues none)' },
  billing_plan: { type: ['string', 'null'], description: 'The billing plan (its price) when it was created as a subscription to a plan' },
  days_until_due: { type: 'integer', description: 'How long each of its invoices gives to pay' },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/**
 * How merchant billing bodies name their customer (packages/http/route-kit.ts `customerFields`),
 * with the words of each field.
 */
export const describedCustomerFields = {
  customer: { ...customerFields.customer, description: 'The customer (`cus_…`); or give `customer_email` instead' },
  customer_email: { ...customerFields.customer_email, description: 'The customer by e-mail address instead of `customer`: the customer with that address, made if there is none yet' },
  customer_name: { ...customerFields.customer_name, description: "The customer's name, given to a customer who has none yet" },
};

/** Recurring prices with quantities, of merchant subscriptions (packages/http/route-kit.ts `itemsSchema`), with words. */
export const describedItemsSchema = {
  ...itemsSchema,
  description: 'The recurring prices to bill each period (up to 20), all in one currency and on one interval',
  items: {
    ...itemsSchema.items,
    properties: {
      price: { ...itemsSchema.items.properties.price, description: 'A recurring price of an active product (`price_…`)' },
      quantity: { ...itemsSchema.items.properties.quantity, description: 'How many units each period bills; 1 when left out' },
    },
  },
};
