import { INVOICE_STATUSES } from '../../../packages/families/billing/invoice/events.js';
import { REFUND_REASONS } from '../../../packages/families/billing/refund/events.js';
import { SUBSCRIPTION_STATUSES } from '../../../packages/families/billing/subscription/events.js';
import { resourceSchema } from '../routes/shared.js';

/**
 * The billing family's objects as its routes answer them: one module, so that the customer
 * portal answers the same shapes without importing a billing route file (no route imports
 * another route file, docs/architecture.md "Adding a family").
 */

/** A customer, as /api/v1/merchant/customers and the customer portal answer it. */
export const customerSchema = resourceSchema('customer', ['name', 'email', 'phone', 'currency', 'balance', 'metadata', 'created'], {
  name: { type: ['string', 'null'] },
  email: { type: ['string', 'null'] },
  phone: { type: ['string', 'null'] },
  currency: { type: ['string', 'null'] },
  balance: { type: 'integer' },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/** An invoice, as /api/v1/merchant/invoices and the customer portal answer it. */
export const invoiceSchema = resourceSchema('invoice', ['customer', 'status', 'currency', 'amount_due', 'amount_paid', 'due_date', 'hosted_invoice_url', 'created'], {
  customer: { type: 'string' },
  status: { enum: [...INVOICE_STATUSES] },
  currency: { type: 'string' },
  amount_due: { type: 'integer' },
  amount_paid: { type: 'integer' },
  amount_remaining: { type: 'integer' },
  due_date: { type: ['string', 'null'], format: 'date' },
  hosted_invoice_url: { type: 'string' },
  subscription: { type: ['string', 'null'] },
  description: { type: ['string', 'null'] },
  lines: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        description: { type: 'string' },
        price: { type: ['string', 'null'] },
        quantity: { type: 'integer' },
        unit_amount: { type: 'integer' },
        amount: { type: 'integer' },
        meter_key: { type: ['string', 'null'] },
      },
    },
  },
  period_start: { type: ['integer', 'null'] },
  period_end: { type: ['integer', 'null'] },
  payment_intent: { type: ['string', 'null'] },
  status_transitions: {
    type: 'object',
    description: 'When it reached each status (Unix seconds), null until it does',
    properties: {
      finalized_at: { type: ['integer', 'null'] },
      paid_at: { type: ['integer', 'null'] },
      voided_at: { type: ['integer', 'null'] },
      marked_uncollectible_at: { type: ['integer', 'null'] },
    },
  },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/** A refund, as /api/v1/merchant/refunds answers it and the customer portal lists a payment's. */
export const refundSchema = resourceSchema('refund', ['amount', 'currency', 'payment_intent', 'status', 'reason', 'created'], {
  amount: { type: 'integer' },
  currency: { type: 'string' },
  payment_intent: { type: 'string' },
  status: { enum: ['pending', 'succeeded', 'failed'] },
  reason: { enum: [...REFUND_REASONS, null] },
  failure_reason: { type: ['string', 'null'] },
  failure_code: { type: ['string', 'null'], description: "Why it failed, when it did: `insufficient_funds`, or the rail's code (`payer_not_found`, `refund_not_supported`…)" },
  failure_message: { type: ['string', 'null'], description: "The rail's words for the failure, when it failed there" },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/** A subscription, as /api/v1/merchant/subscriptions and the customer portal answer it. */
export const subscriptionSchema = resourceSchema('subscription', ['customer', 'status', 'items', 'current_period_start', 'current_period_end', 'created'], {
  customer: { type: 'string' },
  status: { enum: [...SUBSCRIPTION_STATUSES] },
  items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, price: { type: 'string' }, quantity: { type: 'integer' } } } },
  current_period_start: { type: 'integer' },
  current_period_end: { type: 'integer' },
  currency: { type: 'string' },
  cancel_at_period_end: { type: 'boolean' },
  canceled_at: { type: ['integer', 'null'] },
  trial_end: { type: ['integer', 'null'] },
  latest_invoice: { type: ['string', 'null'] },
  billing_plan: { type: ['string', 'null'], description: 'The billing plan (its price) when it was created as a subscription to a plan' },
  days_until_due: { type: 'integer', description: 'How long each of its invoices gives to pay' },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});
