/**
 * The public event types merchants can subscribe to, what emits each, and what `data` holds.
 * docs/events.md is this list in prose; a unit test keeps them in step.
 */
export interface PublicEventType {
  type: string;
  emittedBy: string;
  data: string;
}

export const PUBLIC_EVENT_TYPES: readonly PublicEventType[] = [
  { type: 'payment_intent.created', emittedBy: 'POST /api/v1/payment-intents', data: 'the PaymentIntent' },
  { type: 'payment_intent.processing', emittedBy: 'confirm, when the operator or acquirer accepted the payment', data: 'the PaymentIntent' },
  { type: 'payment_intent.requires_action', emittedBy: 'confirm, when the customer must approve (next_action set)', data: 'the PaymentIntent' },
  { type: 'payment_intent.succeeded', emittedBy: 'the operator confirming the payment', data: 'the PaymentIntent' },
  { type: 'payment_intent.payment_failed', emittedBy: 'the operator refusing the payment (last_payment_error set)', data: 'the PaymentIntent' },
  { type: 'payment_intent.canceled', emittedBy: 'POST /api/v1/payment-intents/{id}/cancel', data: 'the PaymentIntent' },
  { type: 'payout.created', emittedBy: 'POST /api/v1/payouts, POST /api/v1/merchant/payouts, the payout engine queuing a batch item', data: 'the Payout' },
  { type: 'payout.updated', emittedBy: 'the operator accepting the payout (status in_transit)', data: 'the Payout' },
  { type: 'payout.delayed', emittedBy: 'the operator reporting trouble, or expected_by passing (delay_state delayed)', data: 'the Payout' },
  { type: 'payout.paid', emittedBy: 'the operator confirming the transfer', data: 'the Payout' },
  { type: 'payout.failed', emittedBy: 'the operator refusing or failing the transfer (failure_code set)', data: 'the Payout' },
  { type: 'payout.canceled', emittedBy: 'a pending payout canceled before it reached the operator (a batch item not yet sent when its batch was canceled)', data: 'the Payout' },
  // The payout engine (docs/payout-engine.md)
  { type: 'payout_batch.created', emittedBy: 'POST /api/v1/payout-engine/batches', data: 'the PayoutBatch (status validated)' },
  { type: 'payout_batch.execution_started', emittedBy: 'POST /api/v1/payout-engine/batches/{batchId}/execute, …/retry', data: 'the PayoutBatch (status executing)' },
  { type: 'payout_batch.completed', emittedBy: 'the last item of an execution settling, every item paid', data: 'the PayoutBatch' },
  { type: 'payout_batch.partially_failed', emittedBy: 'the last item of an execution settling, some items paid and some not', data: 'the PayoutBatch' },
  { type: 'payout_batch.failed', emittedBy: 'the last item of an execution settling, no item paid', data: 'the PayoutBatch' },
  { type: 'payout_batch.canceled', emittedBy: 'POST /api/v1/payout-engine/batches/{batchId}/cancel', data: 'the PayoutBatch (status canceled)' },
  // Merchant billing (docs/billing.md)
  { type: 'customer.created', emittedBy: 'a payment intent or billing request naming a new customer (customer_email, customer_phone)', data: 'the Customer' },
  { type: 'customer.updated', emittedBy: 'a billing request giving the name of a customer that had none', data: 'the Customer' },
  { type: 'customer.balance_credited', emittedBy: 'POST /api/v1/merchant/billing/wallet/customers/{id}/credit, a voided invoice giving back its wallet payments, an invoice overpayment', data: 'the Customer (balance after)' },
  { type: 'customer.balance_applied', emittedBy: 'POST /api/v1/merchant/billing/wallet/invoices/{invoiceId}/apply', data: 'the Customer (balance after)' },
  { type: 'customer.balance_returned', emittedBy: 'a wallet application the invoice could not take (paid or voided meanwhile)', data: 'the Customer (balance after)' },
  { type: 'product.created', emittedBy: 'POST /api/v1/merchant/products, POST /api/v1/billing/plans', data: 'the Product' },
  { type: 'product.updated', emittedBy: 'PATCH /api/v1/merchant/products/{id}, PATCH …/{id}/active', data: 'the Product' },
  { type: 'product.deleted', emittedBy: 'DELETE /api/v1/merchant/products/{id} (archived)', data: 'the Product (status archived)' },
  { type: 'subscription.created', emittedBy: 'POST /api/v1/merchant/subscriptions, POST /api/v1/billing/subscriptions', data: 'the Subscription' },
  { type: 'subscription.updated', emittedBy: 'status changes (active ⇄ past_due), cancel at period end', data: 'the Subscription' },
  { type: 'subscription.renewed', emittedBy: 'the renewal of a period (a new invoice is issued)', data: 'the Subscription' },
  { type: 'subscription.canceled', emittedBy: 'POST /api/v1/merchant/subscriptions/{id}/cancel, or the period end with cancel_at_period_end', data: 'the Subscription' },
  { type: 'invoice.created', emittedBy: 'POST /api/v1/merchant/invoices, POST /api/v1/billing/invoices, a subscription period', data: 'the Invoice' },
  { type: 'invoice.finalized', emittedBy: 'draft → open (PATCH …/status), billing and subscription invoices at creation', data: 'the Invoice' },
  { type: 'invoice.updated', emittedBy: 'a partial payment (wallet or payment intent)', data: 'the Invoice' },
  { type: 'invoice.paid', emittedBy: 'the last payment, or PATCH …/status to paid', data: 'the Invoice' },
  { type: 'invoice.voided', emittedBy: 'PATCH …/status to void', data: 'the Invoice' },
  { type: 'invoice.marked_uncollectible', emittedBy: 'PATCH …/status to uncollectible', data: 'the Invoice' },
  { type: 'refund.created', emittedBy: 'POST /api/v1/merchant/payments/{id}/refund', data: 'the Refund (status pending)' },
  { type: 'refund.succeeded', emittedBy: 'the refund posted to the ledger', data: 'the Refund' },
  { type: 'refund.failed', emittedBy: 'the available balance not covering the refund', data: 'the Refund (failure_reason set)' },
  // The marketplace (docs/marketplace.md)
  { type: 'marketplace_order.created', emittedBy: 'POST /api/v1/marketplace/orders', data: 'the marketplace Order (status requires_payment)' },
  { type: 'marketplace_order.paid', emittedBy: "the order's payment intent succeeding; the order is split among its sellers and the commission", data: 'the marketplace Order (status paid)' },
  { type: 'marketplace_order.refunded', emittedBy: 'POST /api/v1/marketplace/refunds', data: 'the marketplace Order (refundedMinor after the refund)' },
  { type: 'marketplace_order.canceled', emittedBy: 'POST /api/v1/marketplace/orders/{id}/cancel', data: 'the marketplace Order (status canceled)' },
  // Escrow (docs/escrow.md)
  { type: 'escrow_contract.created', emittedBy: 'POST /api/v1/escrow/contracts', data: 'the EscrowContract' },
  { type: 'escrow_contract.funded', emittedBy: "funds arriving in escrow: the contract's payment intent succeeding, or creation funded from the merchant balance", data: 'the EscrowContract (fundedMinor, heldMinor)' },
  { type: 'escrow_contract.release_executed', emittedBy: 'POST /api/v1/escrow/releases/{id}/execute, a release in immediate mode, the auto-release timer', data: 'the EscrowContract (releasedMinor)' },
  { type: 'escrow_contract.release_returned', emittedBy: "a release's payout failing: its amount goes back to the contract's escrow", data: 'the EscrowContract (releasedMinor, heldMinor)' },
  { type: 'escrow_contract.refunded', emittedBy: 'POST /api/v1/escrow/contracts/{id}/refund, a cancel or a dispute outcome giving funds back to the payer', data: 'the EscrowContract (refundedMinor)' },
  { type: 'escrow_contract.dispute_opened', emittedBy: 'POST /api/v1/escrow/disputes/contract/{contractId}', data: 'the EscrowContract (status disputed)' },
  { type: 'escrow_contract.dispute_resolved', emittedBy: 'POST /api/v1/escrow/disputes/{id}/resolve', data: 'the EscrowContract' },
  { type: 'escrow_contract.canceled', emittedBy: 'POST /api/v1/escrow/contracts/{id}/cancel', data: 'the EscrowContract (status canceled)' },
  // Funding campaigns (docs/funding.md)
  { type: 'funding_campaign.contribution_received', emittedBy: "a contribution's payment succeeding (its funds held on the campaign's account)", data: 'the Contribution' },
  { type: 'funding_campaign.target_reached', emittedBy: 'the contribution that brings the raised amount to the target (once per campaign)', data: 'the Campaign' },
  { type: 'funding_campaign.closed', emittedBy: 'POST /api/v1/funding/campaigns/{id}/close, or the deadline of a campaign that succeeded: its funds are released', data: 'the Campaign (status closed)' },
];

const TYPES = new Set(PUBLIC_EVENT_TYPES.map((e) => e.type));

export function isPublicEventType(type: string): boolean {
  return TYPES.has(type);
}

/** `*` or a known type. */
export function isSubscribableType(type: string): boolean {
  return type === '*' || TYPES.has(type);
}

/** Whether a type filter takes `type`: `*` (all), the type itself, or its family with `.*` (`payout.*`: every `payout.` type). */
export function matchesTypeFilter(filter: string, type: string): boolean {
  return filter === '*' || filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1)));
}

/** The public types a filter names; empty when it names none, so a mistyped filter can be refused. */
export function typesMatching(filter: string): string[] {
  return [...TYPES].filter((t) => matchesTypeFilter(filter, t));
}
