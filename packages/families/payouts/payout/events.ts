import type { PassedOverRail } from '#packages/connectors/port.js';
import type { DomainEvent } from '#packages/core/decider.js';
import type { Destination } from '../payout-method/events.js';
import type { Environment } from '#packages/core/owner.js';

export type PayoutStatus = 'pending' | 'in_transit' | 'paid' | 'failed' | 'canceled';
export type DelayReason = 'operator_pending' | 'operator_timeout' | 'operator_down' | 'provider_action_required' | 'unknown';

/** Where a payout was asked for; the platform records it as `metadata.source`. */
export type PayoutSource = 'api' | 'merchant_portal' | 'payout_engine' | 'marketplace' | 'escrow';

/** Whose funds a payout is paid out of, when not the merchant's own balance: a marketplace seller's (docs/marketplace.md). */
export interface PayoutFunding {
  kind: 'marketplace_seller';
  /** The seller's uuid and the platform's id of it. */
  sellerRef: string;
  sellerId: string;
}

export interface PayoutObject {
  id: string;
  object: 'payout';
  amount: number;
  currency: string;
  status: PayoutStatus;
  destination: Destination;
  payout_method_id: string | null;
  arrival_date_estimate: string;
  expected_by: string;
  delay_state: 'delayed' | null;
  delay_reason: DelayReason | null;
  delayed_at: string | null;
  metadata: Record<string, string>;
  failure_code: string | null;
  failure_message: string | null;
  fee: number;
  created: number;
  livemode: boolean;
  /** The operator's receipt of a paid payout (pawaPay's providerTransactionId), when it gave one; absent otherwise. */
  provider_reference?: string;
  /** Set when the merchant's risk rules held the payout for review (docs/risk.md): `held` until a person releases it (`released`) or declines it (`declined`, the payout failed with `declined_in_review`); absent otherwise. */
  review_status?: 'held' | 'released' | 'declined';
}

export interface PayoutCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  fee: number;
  destination: Destination;
  payoutMethodId: string | null;
  metadata: Record<string, string>;
  /** Where the payout came from; absent on payouts created before it was recorded. */
  source?: PayoutSource;
  /** The payout batch item this payout pays (payout engine): it is sent when the batch's runner dispatches it. */
  batch?: { id: string; index: number; attempt: number };
  /** Set when the payout is paid out of funds held for someone else; absent: the merchant's balance. */
  funding?: PayoutFunding;
  /** The escrow release this payout pays (its hold came out of the contract's escrow, and a failure goes back there). */
  escrow?: { contractId: string; releaseId: string };
  /** The connector sending it, when it keeps Sika's money in a wallet: the payout is paid out of that rail's clearing account. */
  connector?: string;
  /** The rails that serve the destination and that the router passed over for this one (docs/connectors.md, "Health"); absent: none. */
  passedOver?: PassedOverRail[];
  /** The merchant's risk rules held it for review (docs/risk.md): created, its money held, sent only once a person releases it; absent: not held. */
  review?: { reasons: string[] };
  expectedBy: string;
  createdAt: string;
}

type WithObject<D> = D & { object: PayoutObject };

export type PayoutEvent =
  | DomainEvent<'payout.created', WithObject<PayoutCreated>>
  | DomainEvent<'payout.dispatched', WithObject<{ at: string }>>
  // Internal: a person released a payout the risk rules held for review; it is sent now.
  | DomainEvent<'payout.review_released', WithObject<{ at: string }>>
  // Internal: a person declined a payout the risk rules held for review; payout.failed follows in the same commit.
  | DomainEvent<'payout.review_declined', WithObject<{ at: string; reason?: string }>>
  | DomainEvent<'payout.updated', WithObject<{ status: 'in_transit'; at: string }>>
  | DomainEvent<'payout.delayed', WithObject<{ reason: DelayReason; at: string }>>
  | DomainEvent<'payout.paid', WithObject<{ at: string; providerReference?: string }>>
  | DomainEvent<'payout.failed', WithObject<{ failureCode: string; failureMessage: string; at: string }>>
  | DomainEvent<'payout.canceled', WithObject<{ at: string }>>;

export const payoutStream = (id: string) => `payout-${id}`;
