import { unixSeconds } from '../core/clock.js';
import { randomBase62 } from '../core/ids.js';
import type { CustomerObject } from '../domain/customer/events.js';
import type { ContractObject } from '../domain/escrow/events.js';
import type { CampaignObject, ContributionObject } from '../domain/funding-campaign/events.js';
import type { InvoiceObject } from '../domain/invoice/events.js';
import type { OrderObject } from '../domain/marketplace-order/events.js';
import { maskedMethod } from '../domain/payment-intent/decider.js';
import type { PaymentIntentObject } from '../domain/payment-intent/events.js';
import type { PayoutBatchObject } from '../domain/payout-batch/events.js';
import type { PayoutObject } from '../domain/payout/events.js';
import type { ProductObject } from '../domain/product/events.js';
import type { RefundObject } from '../domain/refund/events.js';
import type { SubscriptionObject } from '../domain/subscription/events.js';

/**
 * Test events (docs/webhooks.md, "Sending a test event"): a realistic example of each public
 * type's `data`, typed as the domain's own object so it keeps the real shape. Every id in it, the
 * event's included, holds `_test_`, so no example can be mistaken for (or collide with) a real object.
 */

/** A test object's id: the real prefix, then `test_` (e.g. `pi_test_…`). */
const testId = (prefix: string) => `${prefix}_test_${randomBase62(24)}`;

/** The id of a test event: `evt_test_…` (a real event's is `evt_` and 24 characters). */
export const testEventId = () => testId('evt');

const CURRENCY = 'xof';
const MSISDN = '+221770000000';

/** What a type says happened: `payout.paid` → `paid`. */
function statusOf(type: string): string {
  return type.slice(type.indexOf('.') + 1);
}

/** The status the type leaves its object in, from the family's map of changes to statuses; the object's other fields follow it. */
function statusFor<S extends string>(type: string, statuses: Record<string, S>): S {
  const status = statuses[statusOf(type)];
  if (status === undefined) throw new Error(`No test example for the event type '${type}'`);
  return status;
}

function paymentIntent(type: string, created: number, livemode: boolean): PaymentIntentObject {
  const status = statusFor(type, { created: 'requires_payment_method', processing: 'processing', requires_action: 'requires_action', succeeded: 'succeeded', payment_failed: 'failed', canceled: 'canceled' });
  const paid = status === 'succeeded';
  return {
    id: testId('pi'),
    object: 'payment_intent',
    created,
    livemode,
    amount: 5000,
    currency: CURRENCY,
    status,
    description: 'Test payment',
    metadata: { order_id: '1234' },
    next_action:
      status === 'requires_action'
        ? { type: 'mobile_money_authorization', mobile_money_authorization: { instructions: 'Dial #144# to approve the payment', expires_at: new Date((created + 900) * 1000).toISOString() } }
        : null,
    customer: testId('cus'),
    transaction_country: 'SN',
    payer_country: 'SN',
    rail_country: 'SN',
    payment_method: maskedMethod(status === 'requires_payment_method' ? null : { type: 'mobile_money', country: 'SN', operator: 'orange', msisdn: MSISDN }),
    last_payment_error: status === 'failed' ? { code: 'insufficient_funds', message: 'The payer’s wallet does not hold enough' } : null,
    latest_operation: status === 'requires_payment_method' ? null : testId('op'),
    return_url: null,
    amount_received: paid ? 5000 : 0,
    fee: paid ? 100 : null,
    cancellation_reason: status === 'canceled' ? 'requested_by_customer' : null,
    canceled_at: status === 'canceled' ? created : null,
  };
}

function payout(type: string, created: number, livemode: boolean): PayoutObject {
  const change = statusOf(type);
  const status = statusFor(type, { created: 'pending', updated: 'in_transit', delayed: 'in_transit', paid: 'paid', failed: 'failed', canceled: 'canceled' });
  const at = new Date(created * 1000).toISOString();
  return {
    id: testId('po'),
    object: 'payout',
    amount: 20000,
    currency: CURRENCY,
    status,
    destination: { type: 'mobile_money', currency: CURRENCY, country: 'SN', operator: 'orange', msisdn: MSISDN },
    payout_method_id: null,
    arrival_date_estimate: at,
    expected_by: at,
    delay_state: change === 'delayed' ? 'delayed' : null,
    delay_reason: change === 'delayed' ? 'operator_pending' : null,
    delayed_at: change === 'delayed' ? at : null,
    metadata: { source: 'api' },
    failure_code: status === 'failed' ? 'invalid_account' : null,
    failure_message: status === 'failed' ? 'The operator refused the account' : null,
    fee: 200,
    created,
    livemode,
  };
}

function payoutBatch(type: string, created: number, livemode: boolean): PayoutBatchObject {
  const status = statusFor(type, { created: 'validated', execution_started: 'executing', completed: 'completed', partially_failed: 'partially_failed', failed: 'failed', canceled: 'canceled' });
  const at = new Date(created * 1000).toISOString();
  const counts = { validated: 0, queued: 0, paid: 0, failed: 0, canceled: 0 };
  if (status === 'validated') counts.validated = 2;
  else if (status === 'executing') counts.queued = 2;
  else if (status === 'completed') counts.paid = 2;
  else if (status === 'partially_failed') Object.assign(counts, { paid: 1, failed: 1 });
  else if (status === 'failed') counts.failed = 2;
  else counts.canceled = 2;
  const finished = ['completed', 'partially_failed', 'failed'].includes(status);
  return {
    id: testId('pob'),
    object: 'payout_batch',
    status,
    currency: CURRENCY,
    total_amount: 40000,
    total_fee: 400,
    item_count: 2,
    counts,
    attempt: status === 'validated' ? 0 : 1,
    idempotency_key: null,
    metadata: null,
    source_format: 'json',
    created,
    executed_at: status === 'validated' || status === 'canceled' ? null : at,
    finished_at: finished ? at : null,
    canceled_at: status === 'canceled' ? at : null,
    livemode,
  };
}

function customer(type: string, created: number, livemode: boolean): CustomerObject {
  const wallet = type.startsWith('customer.balance_');
  return { id: testId('cus'), object: 'customer', name: 'Awa Diop', email: 'awa.diop@example.com', phone: MSISDN, currency: wallet ? CURRENCY : null, balance: wallet ? 2500 : 0, metadata: {}, created, livemode };
}

function product(type: string, created: number, livemode: boolean): ProductObject {
  const id = testId('prod');
  const deleted = type === 'product.deleted';
  return {
    id,
    object: 'product',
    name: 'Premium plan',
    description: 'Monthly subscription',
    active: !deleted,
    status: deleted ? 'archived' : 'active',
    prices: [{ id: testId('price'), object: 'price', product: id, currency: CURRENCY, unit_amount: 10000, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' }, created }],
    metadata: {},
    created,
    updated: created,
    livemode,
  };
}

function subscription(type: string, created: number, livemode: boolean): SubscriptionObject {
  const canceled = type === 'subscription.canceled';
  return {
    id: testId('sub'),
    object: 'subscription',
    customer: testId('cus'),
    status: canceled ? 'canceled' : 'active',
    items: [{ id: testId('si'), price: testId('price'), quantity: 1 }],
    current_period_start: created,
    current_period_end: created + 30 * 86_400,
    currency: CURRENCY,
    cancel_at_period_end: false,
    canceled_at: canceled ? created : null,
    trial_end: null,
    latest_invoice: testId('in'),
    billing_plan: null,
    days_until_due: 7,
    metadata: {},
    created,
    livemode,
  };
}

function invoice(type: string, created: number, livemode: boolean): InvoiceObject {
  const change = statusOf(type);
  const status = statusFor(type, { created: 'draft', finalized: 'open', updated: 'open', paid: 'paid', voided: 'void', marked_uncollectible: 'uncollectible' });
  const paid = status === 'paid' ? 10000 : change === 'updated' ? 4000 : 0;
  const id = testId('in');
  return {
    id,
    object: 'invoice',
    customer: testId('cus'),
    subscription: null,
    status,
    currency: CURRENCY,
    amount_due: 10000,
    amount_paid: paid,
    amount_remaining: 10000 - paid,
    due_date: new Date((created + 7 * 86_400) * 1000).toISOString().slice(0, 10),
    hosted_invoice_url: `https://pay.sika.example/invoices/${id}`,
    description: 'Test invoice',
    lines: [{ description: 'Premium plan', price: testId('price'), quantity: 1, unit_amount: 10000, amount: 10000, meter_key: null }],
    period_start: null,
    period_end: null,
    payment_intent: paid > 0 ? testId('pi') : null,
    status_transitions: {
      finalized_at: status === 'draft' ? null : created,
      paid_at: status === 'paid' ? created : null,
      voided_at: status === 'void' ? created : null,
      marked_uncollectible_at: status === 'uncollectible' ? created : null,
    },
    metadata: {},
    created,
    livemode,
  };
}

function refund(type: string, created: number, livemode: boolean): RefundObject {
  const status = statusFor(type, { created: 'pending', succeeded: 'succeeded', failed: 'failed' });
  return {
    id: testId('re'),
    object: 'refund',
    amount: 2000,
    currency: CURRENCY,
    payment_intent: testId('pi'),
    status,
    reason: 'requested_by_customer',
    failure_reason: status === 'failed' ? 'insufficient_available_balance' : null,
    created,
    livemode,
  };
}

function marketplaceOrder(type: string, created: number, livemode: boolean): OrderObject {
  const status = statusFor(type, { created: 'requires_payment', paid: 'paid', refunded: 'refunded', canceled: 'canceled' });
  const seller = testId('acct');
  const paid = status === 'paid' || status === 'refunded';
  return {
    id: testId('mo'),
    object: 'marketplace_order',
    status,
    currency: CURRENCY,
    transactionCountry: 'SN',
    amountMinor: 15000,
    commissionMinor: 1500,
    processingFeeMinor: paid ? 300 : null,
    refundedMinor: status === 'refunded' ? 15000 : 0,
    idempotencyKey: null,
    buyerName: 'Awa Diop',
    buyerEmail: 'awa.diop@example.com',
    paymentIntentId: testId('pi'),
    lines: [{ sellerId: seller, description: 'Handmade basket', amountMinor: 15000, commissionRuleId: null, commissionMinor: 1500 }],
    sellerShares: [{ sellerId: seller, amountMinor: 13500 }],
    paidAt: paid ? created : null,
    canceledAt: status === 'canceled' ? created : null,
    livemode,
    created,
  };
}

function escrowContract(type: string, created: number, livemode: boolean): ContractObject {
  const change = statusOf(type);
  const at = new Date(created * 1000).toISOString();
  const funded = change !== 'created' && change !== 'canceled' ? 50000 : 0;
  const released = change === 'release_executed' ? 20000 : 0;
  const refunded = change === 'refunded' ? 50000 : 0;
  const status = change === 'created' ? 'pending_funding' : change === 'canceled' ? 'canceled' : change === 'dispute_opened' ? 'disputed' : change === 'refunded' ? 'completed' : 'funded';
  return {
    id: testId('esc'),
    object: 'escrow_contract',
    livemode,
    created,
    status,
    currency: CURRENCY,
    amountMinor: 50000,
    fundedMinor: funded,
    releasedMinor: released,
    refundedMinor: refunded,
    heldMinor: funded - released - refunded,
    pendingReleaseMinor: 0,
    fundingSourceType: 'payment_intent',
    fundingSourceLedgerAccountCode: null,
    paymentIntentId: testId('pi'),
    defaultReleaseMode: 'manual',
    ledgerDestinationType: 'merchant_balance',
    ledgerDestinationAccountCode: null,
    defaultPayoutMethodId: null,
    autoReleaseAtUtc: null,
    metadata: null,
    participants: [
      { id: testId('par'), role: 'payer', displayName: 'Awa Diop', email: 'awa.diop@example.com', addedAt: at },
      { id: testId('par'), role: 'beneficiary', displayName: 'Moussa Ndiaye', email: 'moussa.ndiaye@example.com', addedAt: at },
    ],
    milestones: [],
    openDisputeId: change === 'dispute_opened' ? testId('dsp') : null,
    fundedAt: funded > 0 ? at : null,
    canceledAt: status === 'canceled' ? at : null,
  };
}

function campaign(type: string, created: number, livemode: boolean): CampaignObject {
  const at = new Date(created * 1000).toISOString();
  const closed = type === 'funding_campaign.closed';
  return {
    id: testId('fc'),
    object: 'funding.campaign',
    slug: 'school-roof',
    url: 'https://pay.sika.example/f/school-roof',
    title: 'A new roof for the school',
    description: null,
    targetAmountMinor: 1_000_000,
    currency: CURRENCY,
    country: 'SN',
    deadline: null,
    fundingModel: 'keep_what_you_raise',
    payoutMethodId: null,
    metadata: null,
    status: closed ? 'closed' : 'active',
    raisedAmountMinor: 1_000_000,
    contributorCount: 42,
    percentFunded: 100,
    targetReachedAt: at,
    heldAmountMinor: closed ? 0 : 1_000_000,
    releasedAmountMinor: closed ? 1_000_000 : 0,
    releasedFeeMinor: closed ? 20_000 : 0,
    paidOutAmountMinor: 0,
    refundedAmountMinor: 0,
    publishedAt: at,
    closedAt: closed ? at : null,
    livemode,
    created,
  };
}

function contribution(created: number, livemode: boolean): ContributionObject {
  return {
    id: testId('fcc'),
    object: 'funding.contribution',
    campaignId: testId('fc'),
    paymentIntentId: testId('pi'),
    amountMinor: 10000,
    currency: CURRENCY,
    status: 'succeeded',
    contributorName: 'Awa Diop',
    contributorEmail: 'awa.diop@example.com',
    anonymous: false,
    message: 'Good luck!',
    metadata: null,
    feeMinor: 200,
    refundReason: null,
    refundedFrom: null,
    succeededAt: new Date(created * 1000).toISOString(),
    refundedAt: null,
    livemode,
    created,
  };
}

/** An example `data` for a public event type (docs/events.md says which object each carries). */
function sampleObject(type: string, created: number, livemode: boolean): object {
  const family = type.slice(0, type.indexOf('.'));
  switch (family) {
    case 'payment_intent':
      return paymentIntent(type, created, livemode);
    case 'payout':
      return payout(type, created, livemode);
    case 'payout_batch':
      return payoutBatch(type, created, livemode);
    case 'customer':
      return customer(type, created, livemode);
    case 'product':
      return product(type, created, livemode);
    case 'subscription':
      return subscription(type, created, livemode);
    case 'invoice':
      return invoice(type, created, livemode);
    case 'refund':
      return refund(type, created, livemode);
    case 'marketplace_order':
      return marketplaceOrder(type, created, livemode);
    case 'escrow_contract':
      return escrowContract(type, created, livemode);
    case 'funding_campaign':
      return type === 'funding_campaign.contribution_received' ? contribution(created, livemode) : campaign(type, created, livemode);
    default:
      throw new Error(`No test example for the event type '${type}'`);
  }
}

/** A test event of `type` as its webhook carries it: a real event's fields, plus `test: true`. */
export function testEventPayload(id: string, type: string, at: Date, livemode: boolean): string {
  const created = unixSeconds(at);
  return JSON.stringify({ id, object: 'event', type, created, livemode, test: true, data: sampleObject(type, created, livemode) });
}
