import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/**
 * A refund sent through a rail that keeps Sika's money (docs/connectors.md, "Refunds through a
 * rail"): its id, committed before the call, is the rail's idempotency key; its money waits on
 * `rail_refunds:<connector>` until the rail's answer. Whose refund it is (`origin`) says which
 * family follows the answer.
 */
export interface RailRefundRecord {
  /**
   * Sika's id of the refund (a payment's refund `re_…`, a contribution given back): the rail's own
   * id derives from it, and it is the source of the refund's ledger entry, which its end names.
   */
  id: string;
  /** The connector that carried the collection, and carries its refund. */
  connector: string;
  /** The collection the money goes back from (its operation id with the rail). */
  operationId: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  origin: RailRefundOrigin;
  requestedAt: string;
}

/** The family object a rail refund is of: a payment's refund, a funding campaign's contribution given back, an escrow contract's refund. */
export type RailRefundOrigin = { family: 'payment_refund'; paymentId: string } | { family: 'funding_contribution'; campaignId: string } | { family: 'escrow_refund'; contractId: string };

export type RailRefundStatus = 'pending' | 'succeeded' | 'failed';

/** One stream per refund, named by Sika's refund id: a callback or status check finds it by that id alone. */
export type RailRefundEvent =
  | DomainEvent<'rail_refund.requested', { refund: RailRefundRecord }>
  | DomainEvent<'rail_refund.succeeded', { refundId: string; providerReference?: string; at: string }>
  | DomainEvent<'rail_refund.failed', { refundId: string; failureCode: string; failureMessage: string; at: string }>;

export const railRefundStream = (refundId: string) => `rail_refund-${refundId}`;
