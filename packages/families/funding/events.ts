import type { DomainEvent, Fact } from '#packages/core/decider.js';
import type { PayinClearing } from '#packages/families/payments/index.js';
import type { Environment } from '#packages/core/owner.js';

/**
 * A funding campaign: many people contribute toward a target. Its contributions, updates and
 * payouts live on the campaign's own stream, so that a contribution and a close race on one
 * stream version (a contribution after close is refused) and every tally is counted once.
 */

/** `all_or_nothing`: refunded in full when the deadline passes below target; `keep_what_you_raise`: released at close. */
export type FundingModel = 'all_or_nothing' | 'keep_what_you_raise';
export const FUNDING_MODELS: readonly FundingModel[] = ['all_or_nothing', 'keep_what_you_raise'];

export type CampaignStatus = 'draft' | 'active' | 'closed' | 'canceled' | 'failed';
export type ContributionStatus = 'pending' | 'succeeded' | 'failed' | 'canceled' | 'refunded';
/** Why a contribution was refunded: by the organizer, the campaign canceled or failed (all-or-nothing), or paid after the campaign ended. */
export type RefundReason = 'requested_by_organizer' | 'campaign_canceled' | 'campaign_failed' | 'campaign_ended';

export interface CampaignCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  slug: string;
  url: string;
  title: string;
  description: string | null;
  targetAmountMinor: number | null;
  currency: string;
  country: string;
  deadline: string | null;
  fundingModel: FundingModel;
  payoutMethodId: string | null;
  metadata: string | null;
  createdAt: string;
}

export interface CampaignChanges {
  title?: string;
  description?: string | null;
  targetAmountMinor?: number | null;
  deadline?: string | null;
  payoutMethodId?: string | null;
  metadata?: string | null;
}

export interface ContributionCreated {
  id: string;
  campaignId: string;
  paymentIntentId: string;
  amountMinor: number;
  currency: string;
  contributorName: string | null;
  contributorEmail: string | null;
  anonymous: boolean;
  message: string | null;
  metadata: string | null;
  createdAt: string;
}

/** The ledger account a payment's clearing side is: where a refund sends the money back. */
/** Where a contribution's money came in (and a refund of it goes back). */
export type Clearing = PayinClearing;

/**
 * A contribution's give-back as the payer's money moves: one refund, named `id` (Sika's id of the
 * rail refund, the contribution's own; the rail's id derives from it and its metadata carries it),
 * through `rail` (the connector its payment came in by; null when it went back on the ledger alone,
 * final at once). `pending` until the rail's answer; `failed` leaves the contribution refunded and
 * the money back on the account it left, for review (docs/funding.md).
 */
export interface ContributionRefund {
  id: string;
  rail: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  failureCode: string | null;
  settledAt: string | null;
}

export interface ContributionObject {
  id: string;
  object: 'funding.contribution';
  campaignId: string;
  paymentIntentId: string;
  amountMinor: number;
  currency: string;
  status: ContributionStatus;
  contributorName: string | null;
  contributorEmail: string | null;
  anonymous: boolean;
  message: string | null;
  metadata: string | null;
  /** The payment's processing fee, charged when the campaign's funds are released (never on a refunded contribution). */
  feeMinor: number | null;
  refundReason: RefundReason | null;
  /** Where a refund's money came from: the campaign's account, or the organizer's balance once the funds were released. */
  refundedFrom: 'campaign_account' | 'balance' | null;
  succeededAt: string | null;
  refundedAt: string | null;
  /** Its give-back's refund and where it stands (null until given back). */
  refund: ContributionRefund | null;
  livemode: boolean;
  created: number;
}

export interface CampaignUpdate {
  id: string;
  title: string;
  body: string;
  createdAt: string;
  editedAt: string | null;
}

export interface CampaignPayout {
  id: string;
  payoutId: string;
  payoutMethodId: string;
  amountMinor: number;
  feeMinor: number;
  status: 'requested' | 'created' | 'failed';
  failureReason: string | null;
  createdAt: string;
}

export interface CampaignObject {
  id: string;
  object: 'funding.campaign';
  slug: string;
  url: string;
  title: string;
  description: string | null;
  targetAmountMinor: number | null;
  currency: string;
  country: string;
  deadline: string | null;
  fundingModel: FundingModel;
  payoutMethodId: string | null;
  metadata: string | null;
  status: CampaignStatus;
  /** Gross of the succeeded contributions not refunded. */
  raisedAmountMinor: number;
  contributorCount: number;
  /** raised / target in percent, two decimals (null without a target). */
  percentFunded: number | null;
  targetReachedAt: string | null;
  /** What the campaign's ledger account holds now: succeeded − refunded − released. */
  heldAmountMinor: number;
  /** Gross moved to the organizer's balance at close (fees are taken from it then). */
  releasedAmountMinor: number;
  releasedFeeMinor: number;
  /** Of the released funds (net of fees), what payouts took (amount + fee). */
  paidOutAmountMinor: number;
  refundedAmountMinor: number;
  publishedAt: string | null;
  closedAt: string | null;
  livemode: boolean;
  created: number;
}

type WithCampaign<D> = D & { object: CampaignObject };
type WithContribution<D> = D & { object: ContributionObject; campaign: CampaignObject };

export type FundingCampaignEvent =
  | DomainEvent<'funding_campaign.created', WithCampaign<CampaignCreated>>
  | DomainEvent<'funding_campaign.updated', WithCampaign<{ changes: CampaignChanges; at: string }>>
  | DomainEvent<'funding_campaign.published', WithCampaign<{ at: string }>>
  | DomainEvent<'funding_campaign.target_reached', WithCampaign<{ at: string }>>
  /** Closed: by the organizer, or at the deadline; `released` is what moved to the organizer's balance. */
  | DomainEvent<'funding_campaign.closed', WithCampaign<{ at: string; reason: 'organizer' | 'deadline'; released: number; fee: number }>>
  | DomainEvent<'funding_campaign.canceled', WithCampaign<{ at: string }>>
  /** An all-or-nothing campaign whose deadline passed below target: every contribution is refunded. */
  | DomainEvent<'funding_campaign.failed', WithCampaign<{ at: string }>>
  | DomainEvent<'funding_campaign.contribution_created', WithContribution<ContributionCreated>>
  | DomainEvent<'funding_campaign.contribution_received', WithContribution<{ contributionId: string; fee: number; clearing: Clearing; at: string }>>
  | DomainEvent<'funding_campaign.contribution_failed', WithContribution<{ contributionId: string; status: 'failed' | 'canceled'; at: string }>>
  /** `request`: the give-back request that asked for it (derived from its Idempotency-Key), so that request's retry answers it. */
  | DomainEvent<'funding_campaign.contribution_refunded', WithContribution<{ contributionId: string; reason: RefundReason; fromReleased: boolean; at: string; request?: string }>>
  /** The rail's answer to a give-back's refund, committed with the refund's end (its money moved by the rail refund's own entry). */
  | DomainEvent<'funding_campaign.contribution_refund_settled', WithContribution<{ contributionId: string; status: 'succeeded' | 'failed'; failureCode: string | null; at: string }>>
  | DomainEvent<'funding_campaign.update_posted', WithCampaign<{ update: CampaignUpdate }>>
  | DomainEvent<'funding_campaign.update_edited', WithCampaign<{ updateId: string; title?: string; body?: string; at: string }>>
  | DomainEvent<'funding_campaign.update_deleted', WithCampaign<{ updateId: string; at: string }>>
  | DomainEvent<'funding_campaign.payout_requested', WithCampaign<{ payout: CampaignPayout }>>
  | DomainEvent<'funding_campaign.payout_settled', WithCampaign<{ campaignPayoutId: string; status: 'created' | 'failed'; failureReason: string | null; at: string }>>;

/** A campaign's event as its decider decides it: without the objects the command handler renders (`object`, and a contribution's `campaign`). */
export type FundingCampaignFact = Fact<FundingCampaignEvent, 'object' | 'campaign'>;

export const fundingCampaignStream = (id: string) => `funding_campaign-${id}`;

/** Keys a contribution's payment intent carries in its metadata (visible to the merchant). */
export const CONTRIBUTION_METADATA = { campaign: 'funding_campaign_id', contribution: 'funding_contribution_id' } as const;
