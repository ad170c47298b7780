import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** Where a dispute stands (docs/disputes.md): the merchant's to answer, the issuer's to decide, or closed. */
export type DisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost' | 'accepted';
export const DISPUTE_STATUSES: readonly DisputeStatus[] = ['needs_response', 'under_review', 'won', 'lost', 'accepted'];
export type ClosedStatus = 'won' | 'lost' | 'accepted';
export const isClosed = (status: DisputeStatus): status is ClosedStatus => status === 'won' || status === 'lost' || status === 'accepted';

/** The merchant's evidence as it was sent to the rail: text fields and the ids of its files (assets). */
export interface Evidence {
  customerEmail: string;
  customerName: string;
  customerPhone: string;
  serviceDetails: string;
  deliveryAddress: string | null;
  deliveryDate: string | null;
  files: string[];
  submittedAt: string;
}

/** A dispute as the rail opened it, matched to the merchant's payment. */
export interface DisputeOpened {
  id: string;
  merchantId: string;
  environment: Environment;
  /** The rail that carries it (`paystack`) and its id there. */
  connector: string;
  providerDisputeId: string;
  paymentIntentId: string;
  amount: number;
  currency: string;
  /** Of the disputed amount, what `available` covered and was held (docs/disputes.md, "The ledger"). */
  held: number;
  /** The catalog's dispute fee as charged with the hold (kept whatever the outcome). */
  fee: number;
  /** What `available` could not cover of the amount and the fee as the dispute opened. */
  shortfall: number;
  reason: string;
  status: 'needs_response' | 'under_review';
  evidenceDueBy: string | null;
  /** The clearing account the payment came in through: where a lost dispute's money goes back out. */
  clearing: string;
  createdAt: string;
}

/** What merchants see (GET /api/v1/disputes/{id}, webhooks' `data.object`). */
export interface DisputeObject {
  id: string;
  object: 'dispute';
  livemode: boolean;
  status: DisputeStatus;
  reason: string;
  amount: number;
  currency: string;
  fee: number;
  shortfall: number;
  payment_intent: string;
  evidence_due_by: string | null;
  evidence: {
    customer_email: string;
    customer_name: string;
    customer_phone: string;
    service_details: string;
    delivery_address: string | null;
    delivery_date: string | null;
    files: string[];
    submitted_at: string;
  } | null;
  created: string;
  closed_at: string | null;
}

export type DisputeEvent =
  | DomainEvent<'dispute.created', DisputeOpened>
  /** The rail's news moved it (a new status, a new due date), or the merchant sent evidence. */
  | DomainEvent<'dispute.updated', { status: DisputeStatus; evidenceDueBy: string | null; evidence?: Evidence; at: string }>
  | DomainEvent<'dispute.closed', { status: ClosedStatus; at: string }>;

export const disputeStream = (id: string) => `dispute-${id}`;
