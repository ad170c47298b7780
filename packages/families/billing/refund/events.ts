import type { DomainEvent } from '#packages/core/decider.js';
import type { Account } from '#packages/families/ledger/index.js';
import type { Environment } from '#packages/core/owner.js';

export type RefundReason = 'duplicate' | 'fraudulent' | 'requested_by_customer';
export const REFUND_REASONS: readonly RefundReason[] = ['duplicate', 'fraudulent', 'requested_by_customer'];

/**
 * pending: counted against the payment, its money held; through a rail (pawaPay) until the rail's
 * answer, else while the ledger posting is under way. succeeded: the money went back to the payer.
 * failed: nothing went back, the amount is refundable again.
 */
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** The Refund as the API returns it. */
export interface RefundObject {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  status: RefundStatus;
  reason: RefundReason | null;
  failure_reason: string | null;
  /** Why it failed, as a code (`insufficient_funds`, or the rail's: `payer_not_found`…); null unless failed. */
  failure_code: string | null;
  /** The rail's words for it, when it failed there. */
  failure_message: string | null;
  created: number;
  livemode: boolean;
}

/** What a refund needs to know about the payment it refunds, taken from the succeeded payment intent. */
export interface RefundedPayment {
  id: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  /** Where the money goes back through: the clearing account the payment came in by. */
  clearing: Account;
}

export interface RefundCreated {
  id: string;
  amount: number;
  reason: RefundReason | null;
  createdAt: string;
}

type WithObject<D> = D & { object: RefundObject };

/** One stream per payment holds all its refunds, so the refundable remainder is one stream's decision. */
export type RefundEvent =
  | DomainEvent<'refund.created', WithObject<{ payment: RefundedPayment; refund: RefundCreated }>>
  | DomainEvent<'refund.succeeded', WithObject<{ refundId: string; at: string }>>
  | DomainEvent<'refund.failed', WithObject<{ refundId: string; failureReason: string; at: string; failureCode?: string; failureMessage?: string }>>;

export const paymentRefundsStream = (paymentIntentId: string) => `payment_refunds-${paymentIntentId}`;
