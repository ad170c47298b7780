import type { DomainEvent } from '../../core/decider.js';
import type { Environment } from '../../core/owner.js';

/** How a contract is funded: by a payment intent of the payer, or from the merchant's own available balance. */
export type FundingSourceType = 'payment_intent' | 'merchant_balance';
export const FUNDING_SOURCE_TYPES: readonly FundingSourceType[] = ['payment_intent', 'merchant_balance'];

/** `immediate`: a release is executed as it is created; `manual`: it waits for `execute`. */
export type ReleaseMode = 'manual' | 'immediate';
export const RELEASE_MODES: readonly ReleaseMode[] = ['manual', 'immediate'];

/** Where a release goes when `execute` names no destination. */
export type LedgerDestinationType = 'merchant_balance' | 'payout_method';
export const LEDGER_DESTINATION_TYPES: readonly LedgerDestinationType[] = ['merchant_balance', 'payout_method'];

/** Why a release was made: a client's call, a milestone, the auto-release timer, a dispute's outcome. */
export type ReleaseTrigger = 'manual' | 'milestone' | 'auto_release' | 'dispute_resolution';
export const CLIENT_RELEASE_TRIGGERS: readonly ReleaseTrigger[] = ['manual', 'milestone'];

export type DisputeOutcome = 'release_to_beneficiary' | 'refund_to_payer' | 'split' | 'dismissed';
export const DISPUTE_OUTCOMES: readonly DisputeOutcome[] = ['release_to_beneficiary', 'refund_to_payer', 'split', 'dismissed'];

export type ParticipantRole = 'payer' | 'beneficiary' | 'agent';
export const PARTICIPANT_ROLES: readonly ParticipantRole[] = ['payer', 'beneficiary', 'agent'];
export type DisputeOpener = 'payer' | 'beneficiary' | 'platform';
export const DISPUTE_OPENERS: readonly DisputeOpener[] = ['payer', 'beneficiary', 'platform'];

export type ContractStatus = 'draft' | 'pending_funding' | 'funded' | 'disputed' | 'completed' | 'canceled';
export const CONTRACT_STATUSES: readonly ContractStatus[] = ['draft', 'pending_funding', 'funded', 'disputed', 'completed', 'canceled'];
/** `returned`: executed as a payout that failed; its amount is back in the contract's escrow. */
export type ReleaseStatus = 'pending' | 'executed' | 'canceled' | 'returned';
export const RELEASE_STATUSES: readonly ReleaseStatus[] = ['pending', 'executed', 'canceled', 'returned'];
export type DisputeStatus = 'open' | 'resolved';
export type MilestoneStatus = 'open' | 'completed' | 'released';

export interface Participant {
  id: string;
  role: ParticipantRole;
  displayName: string;
  email: string | null;
  addedAt: string;
}

export interface Milestone {
  id: string;
  title: string;
  amountMinor: number;
  status: MilestoneStatus;
  createdAt: string;
  completedAt: string | null;
}

/** Where an executed release went: the merchant's balance (a ledger transfer, maybe for a participant) or a payout. */
export type ReleaseDestination = { type: 'ledger_transfer'; beneficiaryParticipantId: string | null; accountCode: string | null } | { type: 'payout'; payoutMethodId: string; payoutId: string; fee: number };

export interface Release {
  id: string;
  contractId: string;
  amountMinor: number;
  milestoneId: string | null;
  mode: ReleaseMode;
  trigger: ReleaseTrigger;
  idempotencyKey: string | null;
  manualOverride: boolean;
  status: ReleaseStatus;
  destination: ReleaseDestination | null;
  createdAt: string;
  executedAt: string | null;
  canceledAt: string | null;
  /** When its payout failed and the amount went back to escrow (absent on releases recorded before returns existed). */
  returnedAt?: string | null;
}

export interface Dispute {
  id: string;
  contractId: string;
  reason: string;
  openedByRole: DisputeOpener;
  status: DisputeStatus;
  outcome: DisputeOutcome | null;
  outcomeMetadata: string | null;
  releasedMinor: number;
  refundedMinor: number;
  openedAt: string;
  resolvedAt: string | null;
}

export interface ContractCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  amountMinor: number | null;
  fundingSourceType: FundingSourceType;
  fundingSourceLedgerAccountCode: string | null;
  defaultReleaseMode: ReleaseMode;
  ledgerDestinationType: LedgerDestinationType;
  ledgerDestinationAccountCode: string | null;
  defaultPayoutMethodId: string | null;
  autoReleaseAtUtc: string | null;
  metadata: string | null;
  createdAt: string;
}

/** The public objects, camelCase like the family's bodies. */
export interface ReleaseObject extends Omit<Release, 'createdAt' | 'executedAt' | 'canceledAt' | 'returnedAt'> {
  object: 'escrow_release';
  livemode: boolean;
  currency: string;
  created: number;
  executedAt: string | null;
  canceledAt: string | null;
  returnedAt: string | null;
}

export interface DisputeObject extends Omit<Dispute, 'openedAt' | 'resolvedAt'> {
  object: 'escrow_dispute';
  livemode: boolean;
  created: number;
  resolvedAt: string | null;
}

export interface ContractObject {
  id: string;
  object: 'escrow_contract';
  livemode: boolean;
  created: number;
  status: ContractStatus;
  currency: string;
  amountMinor: number | null;
  /** Received into escrow (net of the payment's processing fee). */
  fundedMinor: number;
  releasedMinor: number;
  refundedMinor: number;
  /** In escrow now: funded − released − refunded. */
  heldMinor: number;
  /** Part of heldMinor promised to pending releases. */
  pendingReleaseMinor: number;
  fundingSourceType: FundingSourceType;
  fundingSourceLedgerAccountCode: string | null;
  paymentIntentId: string | null;
  defaultReleaseMode: ReleaseMode;
  ledgerDestinationType: LedgerDestinationType;
  ledgerDestinationAccountCode: string | null;
  defaultPayoutMethodId: string | null;
  autoReleaseAtUtc: string | null;
  metadata: string | null;
  participants: Participant[];
  milestones: Milestone[];
  openDisputeId: string | null;
  fundedAt: string | null;
  canceledAt: string | null;
}

/** A refund of held funds to the payer (its own amount; a dispute's or cancel's share, or a direct refund). */
export interface Refund {
  id: string;
  amountMinor: number;
  reason: 'requested' | 'canceled' | 'dispute' | 'late_funding';
  at: string;
}

type WithObject<D> = D & { object: ContractObject };

export type EscrowEvent =
  | DomainEvent<'escrow_contract.created', WithObject<ContractCreated>>
  | DomainEvent<'escrow_contract.funding_submitted', WithObject<{ paymentIntentId: string; at: string }>>
  | DomainEvent<'escrow_contract.funded', WithObject<{ source: string; amountMinor: number; at: string }>>
  | DomainEvent<'escrow_contract.participant_added', WithObject<{ participant: Participant }>>
  | DomainEvent<'escrow_contract.milestone_added', WithObject<{ milestone: Milestone }>>
  | DomainEvent<'escrow_contract.milestone_completed', WithObject<{ milestoneId: string; at: string }>>
  | DomainEvent<'escrow_contract.release_created', WithObject<{ release: Release }>>
  // `release` and `dispute` are as the change left them, for their read models.
  | DomainEvent<'escrow_contract.release_executed', WithObject<{ releaseId: string; destination: ReleaseDestination; at: string; release: Release }>>
  | DomainEvent<'escrow_contract.release_canceled', WithObject<{ releaseId: string; at: string; release: Release }>>
  | DomainEvent<'escrow_contract.release_returned', WithObject<{ releaseId: string; payoutId: string; at: string; release: Release }>>
  | DomainEvent<'escrow_contract.refunded', WithObject<{ refund: Refund }>>
  | DomainEvent<'escrow_contract.dispute_opened', WithObject<{ dispute: Dispute }>>
  | DomainEvent<'escrow_contract.dispute_resolved', WithObject<{ disputeId: string; outcome: DisputeOutcome; outcomeMetadata: string | null; releasedMinor: number; refundedMinor: number; at: string; dispute: Dispute }>>
  | DomainEvent<'escrow_contract.canceled', WithObject<{ at: string }>>;

export const escrowContractStream = (id: string) => `escrow_contract-${id}`;
