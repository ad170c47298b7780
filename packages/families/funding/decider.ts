import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { PersistentMap } from '#packages/core/persistent-map.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { CampaignChanges, CampaignCreated, CampaignPayout, CampaignStatus, CampaignUpdate, Clearing, ContributionCreated, ContributionRefund, ContributionStatus, FundingCampaignFact, RefundReason } from './events.js';
import type { Owner } from '#packages/core/owner.js';
import { fundingErrors } from './errors.js';

export interface ContributionState extends ContributionCreated {
  status: ContributionStatus;
  fee: number | null;
  clearing: Clearing | null;
  refundReason: RefundReason | null;
  refundedFrom: 'campaign_account' | 'balance' | null;
  succeededAt: string | null;
  refundedAt: string | null;
  /** The request that gave it back (its give-back's `request`), when it named one: its retry answers it. */
  refundRequest?: string;
  /** Its give-back's refund (null until given back). */
  refund: ContributionRefund | null;
}

export interface FundingCampaignState {
  campaign: CampaignCreated | null;
  status: CampaignStatus;
  publishedAt: string | null;
  closedAt: string | null;
  targetReachedAt: string | null;
  /** Persistent: a campaign may have thousands, and a copied Map per event made folding quadratic. */
  contributions: PersistentMap<ContributionState>;
  /** Contributions succeeded and not refunded: kept here so no event has to count them. */
  contributors: number;
  /** Gross held on the campaign's ledger account: succeeded − refunded − released. */
  held: number;
  /** Fees of the contributions held now (charged at release). */
  heldFees: number;
  released: number;
  releasedFee: number;
  refunded: number;
  /** Of `refunded`, what was given back out of the organizer's balance after release. */
  refundedAfterRelease: number;
  /** Amount + fee of the payouts of released funds not failed. */
  paidOut: number;
  /** Counts the changes to the held funds: a move computed on an older count is stale. */
  moneyVersion: number;
  updates: CampaignUpdate[];
  payouts: CampaignPayout[];
}

export const initialFundingCampaignState: FundingCampaignState = {
  campaign: null,
  status: 'draft',
  publishedAt: null,
  closedAt: null,
  targetReachedAt: null,
  contributions: PersistentMap.empty(),
  contributors: 0,
  held: 0,
  heldFees: 0,
  released: 0,
  releasedFee: 0,
  refunded: 0,
  refundedAfterRelease: 0,
  paidOut: 0,
  moneyVersion: 0,
  updates: [],
  payouts: [],
};

/** The outcome of a contribution's payment intent, as its command service read it. */
export type PaymentOutcome = { status: 'succeeded'; fee: number; clearing: Clearing } | { status: 'failed' | 'canceled' };

/** What a command that moves held funds computed them from: refused as stale (409, retried by the service) if the campaign moved since. */
interface Based {
  moneyVersion: number;
}

type OwnerCommand = { owner: Owner; at: Date };

export type FundingCampaignCommand =
  | { type: 'create'; campaign: CampaignCreated }
  | (OwnerCommand & { type: 'update'; changes: CampaignChanges })
  | (OwnerCommand & { type: 'publish' })
  | (OwnerCommand & Based & { type: 'close'; reason: 'organizer' | 'deadline' })
  | (OwnerCommand & Based & { type: 'cancel' })
  /** The deadline timer: an all-or-nothing campaign below target fails, any other closes. */
  | (OwnerCommand & Based & { type: 'expire' })
  | (OwnerCommand & { type: 'contribute'; contribution: ContributionCreated })
  | (OwnerCommand & Based & { type: 'record_payment'; contributionId: string; paymentIntentId: string; outcome: PaymentOutcome })
  | (OwnerCommand & Based & { type: 'refund_contribution'; contributionId: string; request?: string })
  | (OwnerCommand & { type: 'cancel_contribution'; contributionId: string })
  /** The rail's answer to a contribution's give-back (its refund's end). */
  | (OwnerCommand & { type: 'settle_refund'; contributionId: string; status: 'succeeded' | 'failed'; failureCode: string | null })
  | (OwnerCommand & { type: 'post_update'; update: CampaignUpdate })
  | (OwnerCommand & { type: 'edit_update'; updateId: string; title?: string; body?: string })
  | (OwnerCommand & { type: 'delete_update'; updateId: string })
  | (OwnerCommand & { type: 'request_payout'; payout: CampaignPayout })
  | (OwnerCommand & { type: 'settle_payout'; campaignPayoutId: string; status: 'created' | 'failed'; failureReason: string | null });

/**
 * The statuses each command acts in. Outside them a command is refused with IKW-FND-001, except
 * contributions (IKW-FND-002) and a late payment, which the campaign takes and gives back at once.
 */
export const CAMPAIGN_TRANSITIONS = {
  update: ['draft', 'active'],
  publish: ['draft'],
  close: ['active'],
  cancel: ['draft', 'active'],
  expire: ['active'],
  contribute: ['active'],
  post_update: ['draft', 'active', 'closed'],
  request_payout: ['closed'],
} as const satisfies Partial<Record<FundingCampaignCommand['type'], readonly CampaignStatus[]>>;

/** Fields only a draft may change: the promise contributors rely on once it is published. */
const DRAFT_ONLY: readonly (keyof CampaignChanges)[] = ['targetAmountMinor', 'deadline'];

/** Of released funds, what a payout may still take (amount + fee): a refund after release already took its part of them. */
export const payableOf = (s: FundingCampaignState) => s.released - s.releasedFee - s.paidOut - s.refundedAfterRelease;

/** The contributions succeeded and not given back, wherever their funds are now. */
export const raisedOf = (s: FundingCampaignState) => s.held + s.released - s.refundedAfterRelease;

function withContribution(s: FundingCampaignState, id: string, change: Partial<ContributionState>): PersistentMap<ContributionState> {
  return s.contributions.set(id, { ...s.contributions.get(id)!, ...change });
}

/**
 * A give-back's refund as it starts: through the rail the payment came in by (pending until its
 * answer), under the contribution's id (the rail refund's id, railRefundsOf); on the ledger alone
 * otherwise, final at once.
 */
function giveBackOf(c: ContributionState, at: string): ContributionRefund {
  const rail = c.clearing?.startsWith('rail_clearing:') ? c.clearing.slice('rail_clearing:'.length) : null;
  return { id: c.id, rail, status: rail ? 'pending' : 'succeeded', failureCode: null, settledAt: rail ? null : at };
}

/** The held contributions' moves when the campaign gives everything back (cancel, failure). */
function refundAll(s: FundingCampaignState, at: string, reason: RefundReason): FundingCampaignFact[] {
  return s.contributions
    .values()
    .filter((c) => c.status === 'succeeded')
    .map((c) => ({ type: 'funding_campaign.contribution_refunded', data: { contributionId: c.id, reason, fromReleased: false, at } }));
}

function evolve(state: FundingCampaignState, event: FundingCampaignFact): FundingCampaignState {
  switch (event.type) {
    case 'funding_campaign.created':
      return { ...state, campaign: stripObject(event.data) };
    case 'funding_campaign.updated':
      return { ...state, campaign: { ...state.campaign!, ...event.data.changes } };
    case 'funding_campaign.published':
      return { ...state, status: 'active', publishedAt: event.data.at };
    case 'funding_campaign.target_reached':
      return { ...state, targetReachedAt: event.data.at };
    case 'funding_campaign.closed':
      return {
        ...state,
        status: 'closed',
        closedAt: event.data.at,
        held: state.held - event.data.released,
        heldFees: state.heldFees - event.data.fee,
        released: state.released + event.data.released,
        releasedFee: state.releasedFee + event.data.fee,
        moneyVersion: state.moneyVersion + 1,
      };
    case 'funding_campaign.canceled':
      return { ...state, status: 'canceled', closedAt: event.data.at };
    case 'funding_campaign.failed':
      return { ...state, status: 'failed', closedAt: event.data.at };
    case 'funding_campaign.contribution_created': {
      const c = stripObject(event.data);
      const contributions = state.contributions.set(c.id, { ...c, status: 'pending', fee: null, clearing: null, refundReason: null, refundedFrom: null, succeededAt: null, refundedAt: null, refund: null });
      return { ...state, contributions };
    }
    case 'funding_campaign.contribution_received': {
      const c = state.contributions.get(event.data.contributionId)!;
      return {
        ...state,
        contributions: withContribution(state, c.id, { status: 'succeeded', fee: event.data.fee, clearing: event.data.clearing, succeededAt: event.data.at }),
        contributors: state.contributors + 1,
        held: state.held + c.amountMinor,
        heldFees: state.heldFees + event.data.fee,
        moneyVersion: state.moneyVersion + 1,
      };
    }
    case 'funding_campaign.contribution_failed':
      return { ...state, contributions: withContribution(state, event.data.contributionId, { status: event.data.status }) };
    case 'funding_campaign.contribution_refunded': {
      const c = state.contributions.get(event.data.contributionId)!;
      const contributions = withContribution(state, c.id, {
        status: 'refunded',
        refundReason: event.data.reason,
        refundedFrom: event.data.fromReleased ? 'balance' : 'campaign_account',
        refundedAt: event.data.at,
        refund: giveBackOf(c, event.data.at),
        ...(event.data.request !== undefined ? { refundRequest: event.data.request } : {}),
      });
      const fee = c.fee ?? 0;
      // After release the refund comes out of the organizer's balance: the release stays as it was.
      const fromHeld = event.data.fromReleased ? { refundedAfterRelease: state.refundedAfterRelease + c.amountMinor } : { held: state.held - c.amountMinor, heldFees: state.heldFees - fee };
      const contributors = state.contributors - (c.status === 'succeeded' ? 1 : 0);
      return { ...state, contributions, contributors, ...fromHeld, refunded: state.refunded + c.amountMinor, moneyVersion: state.moneyVersion + 1 };
    }
    case 'funding_campaign.contribution_refund_settled': {
      const { contributionId, status, failureCode, at } = event.data;
      const refund = state.contributions.get(contributionId)!.refund!;
      return { ...state, contributions: withContribution(state, contributionId, { refund: { ...refund, status, failureCode, settledAt: at } }) };
    }
    case 'funding_campaign.update_posted':
      return { ...state, updates: [...state.updates, event.data.update] };
    case 'funding_campaign.update_edited': {
      const { updateId, at, title, body } = event.data;
      return {
        ...state,
        updates: state.updates.map((u) => (u.id === updateId ? { ...u, ...(title !== undefined ? { title } : {}), ...(body !== undefined ? { body } : {}), editedAt: at } : u)),
      };
    }
    case 'funding_campaign.update_deleted':
      return { ...state, updates: state.updates.filter((u) => u.id !== event.data.updateId) };
    case 'funding_campaign.payout_requested': {
      const p = event.data.payout;
      return { ...state, payouts: [...state.payouts, p], paidOut: state.paidOut + p.amountMinor + p.feeMinor };
    }
    case 'funding_campaign.payout_settled': {
      const { campaignPayoutId, status, failureReason } = event.data;
      const payout = state.payouts.find((p) => p.id === campaignPayoutId)!;
      const giveBack = status === 'failed' ? payout.amountMinor + payout.feeMinor : 0;
      return { ...state, paidOut: state.paidOut - giveBack, payouts: state.payouts.map((p) => (p.id === campaignPayoutId ? { ...p, status, failureReason } : p)) };
    }
  }
}

/** Stored events carry the objects rendered after them (`object`, a contribution's `campaign`): the state keeps the fact alone. */
function stripObject<D extends object>(data: D): D {
  const { object: _object, campaign: _campaign, ...rest } = data as D & { object?: unknown; campaign?: unknown };
  return rest as D;
}

function assertIn(state: FundingCampaignState, allowed: readonly CampaignStatus[], what: string): void {
  if (!allowed.includes(state.status)) throw new Refusal('IKW-FND-001', `Cannot ${what} a ${state.status} campaign`, 'campaignId');
}

function assertFresh(state: FundingCampaignState, command: Based): void {
  if (state.moneyVersion !== command.moneyVersion) throw new Refusal('IKW-RES-003', 'The campaign changed while its funds were being moved; retry');
}

function contributionOf(state: FundingCampaignState, id: string): ContributionState {
  const c = state.contributions.get(id);
  if (!c) throw new Refusal('IKW-RES-001', `No such contribution: '${id}'`, 'contributionId');
  return c;
}

/** Whether the target is reached by `raised` while it was not before. */
function reaches(state: FundingCampaignState, raisedAfter: number): boolean {
  const target = state.campaign!.targetAmountMinor;
  return target !== null && state.targetReachedAt === null && raisedAfter >= target;
}

function decide(command: FundingCampaignCommand, state: FundingCampaignState): FundingCampaignFact[] {
  if (command.type === 'create') {
    if (state.campaign) throw new Refusal('IKW-RES-003', `Funding campaign ${command.campaign.id} already exists`);
    return [{ type: 'funding_campaign.created', data: command.campaign }];
  }
  assertOwned(state.campaign, command.owner, 'No such funding campaign', 'campaignId');
  const campaign = state.campaign;
  const at = command.at.toISOString();
  switch (command.type) {
    case 'update': {
      assertIn(state, CAMPAIGN_TRANSITIONS.update, 'update');
      const fixed = DRAFT_ONLY.find((k) => command.changes[k] !== undefined);
      if (state.status !== 'draft' && fixed) throw new Refusal('IKW-FND-001', `${fixed} cannot change once the campaign is published`, fixed);
      const after = { ...campaign, ...command.changes };
      assertModel(after);
      return Object.keys(command.changes).length === 0 ? [] : [{ type: 'funding_campaign.updated', data: { changes: command.changes, at } }];
    }
    case 'publish': {
      if (state.status === 'active') return [];
      assertIn(state, CAMPAIGN_TRANSITIONS.publish, 'publish');
      if (campaign.deadline !== null && Date.parse(campaign.deadline) <= command.at.getTime()) throw new Refusal('IKW-VAL-001', 'The deadline has passed; set a later one before publishing', 'deadline');
      return [{ type: 'funding_campaign.published', data: { at } }];
    }
    case 'close': {
      assertIn(state, CAMPAIGN_TRANSITIONS.close, 'close');
      assertFresh(state, command);
      if (campaign.fundingModel === 'all_or_nothing' && (campaign.targetAmountMinor === null || raisedOf(state) < campaign.targetAmountMinor)) {
        throw new Refusal('IKW-FND-003', fundingErrors['IKW-FND-003'].message, 'campaignId');
      }
      return [{ type: 'funding_campaign.closed', data: { at, reason: command.reason, released: state.held, fee: state.heldFees } }];
    }
    case 'cancel':
      if (state.status === 'canceled') return [];
      assertIn(state, CAMPAIGN_TRANSITIONS.cancel, 'cancel');
      assertFresh(state, command);
      return [...refundAll(state, at, 'campaign_canceled'), { type: 'funding_campaign.canceled', data: { at } }];
    case 'expire': {
      // The timer may run again after a crash, or find the campaign closed by hand: nothing then.
      if (state.status !== 'active' || campaign.deadline === null || command.at.getTime() < Date.parse(campaign.deadline)) return [];
      assertFresh(state, command);
      const target = campaign.targetAmountMinor;
      if (campaign.fundingModel === 'all_or_nothing' && (target === null || raisedOf(state) < target)) {
        return [...refundAll(state, at, 'campaign_failed'), { type: 'funding_campaign.failed', data: { at } }];
      }
      return [{ type: 'funding_campaign.closed', data: { at, reason: 'deadline', released: state.held, fee: state.heldFees } }];
    }
    case 'contribute': {
      const c = command.contribution;
      if (state.contributions.has(c.id)) return [];
      if (state.status !== 'active') throw new Refusal('IKW-FND-002', `The campaign is ${state.status}: it takes no contributions`, 'campaignId');
      if (campaign.deadline !== null && command.at.getTime() >= Date.parse(campaign.deadline)) throw new Refusal('IKW-FND-002', 'The campaign has passed its deadline', 'campaignId');
      if (c.currency !== campaign.currency) throw new Refusal('IKW-VAL-009', `This campaign raises ${campaign.currency}`, 'currency');
      return [{ type: 'funding_campaign.contribution_created', data: c }];
    }
    case 'record_payment': {
      const c = contributionOf(state, command.contributionId);
      // Only the intent made for the contribution counts, once; a late or repeated outcome changes nothing.
      if (c.paymentIntentId !== command.paymentIntentId || c.status !== 'pending') return [];
      if (command.outcome.status !== 'succeeded') {
        return [{ type: 'funding_campaign.contribution_failed', data: { contributionId: c.id, status: command.outcome.status, at } }];
      }
      assertFresh(state, command);
      const received: FundingCampaignFact = { type: 'funding_campaign.contribution_received', data: { contributionId: c.id, fee: command.outcome.fee, clearing: command.outcome.clearing, at } };
      // Paid after the campaign ended (the payment was with the operator at close): taken, then given back.
      if (state.status !== 'active') return [received, { type: 'funding_campaign.contribution_refunded', data: { contributionId: c.id, reason: 'campaign_ended', fromReleased: false, at } }];
      return reaches(state, raisedOf(state) + c.amountMinor) ? [received, { type: 'funding_campaign.target_reached', data: { at } }] : [received];
    }
    case 'refund_contribution': {
      const c = contributionOf(state, command.contributionId);
      // The retry of the request that gave it back (also one racing its first attempt): answered as it stands.
      if (command.request !== undefined && c.refundRequest === command.request) return [];
      if (c.status !== 'succeeded') throw new Refusal('IKW-FND-004', `The contribution is ${c.status}; only a succeeded contribution can be refunded`, 'contributionId');
      assertFresh(state, command);
      const request = command.request !== undefined ? { request: command.request } : {};
      return [{ type: 'funding_campaign.contribution_refunded', data: { contributionId: c.id, reason: 'requested_by_organizer', fromReleased: state.status === 'closed', at, ...request } }];
    }
    case 'cancel_contribution': {
      const c = contributionOf(state, command.contributionId);
      if (c.status === 'canceled') return [];
      if (c.status !== 'pending') throw new Refusal('IKW-FND-004', `The contribution is ${c.status}; only a pending contribution can be canceled`, 'contributionId');
      return [{ type: 'funding_campaign.contribution_failed', data: { contributionId: c.id, status: 'canceled', at } }];
    }
    case 'settle_refund': {
      const c = contributionOf(state, command.contributionId);
      // Told once, by the refund's end; a give-back with no rail refund pending has nothing to settle.
      if (c.refund?.status !== 'pending') return [];
      return [{ type: 'funding_campaign.contribution_refund_settled', data: { contributionId: c.id, status: command.status, failureCode: command.failureCode, at } }];
    }
    case 'post_update':
      assertIn(state, CAMPAIGN_TRANSITIONS.post_update, 'post an update to');
      if (state.updates.some((u) => u.id === command.update.id)) return [];
      return [{ type: 'funding_campaign.update_posted', data: { update: command.update } }];
    case 'edit_update':
    case 'delete_update': {
      if (!state.updates.some((u) => u.id === command.updateId)) throw new Refusal('IKW-RES-001', `No such campaign update: '${command.updateId}'`, 'updateId');
      if (command.type === 'delete_update') return [{ type: 'funding_campaign.update_deleted', data: { updateId: command.updateId, at } }];
      const changes = { ...(command.title !== undefined ? { title: command.title } : {}), ...(command.body !== undefined ? { body: command.body } : {}) };
      return [{ type: 'funding_campaign.update_edited', data: { updateId: command.updateId, ...changes, at } }];
    }
    case 'request_payout': {
      const p = command.payout;
      if (state.payouts.some((x) => x.id === p.id)) return [];
      assertIn(state, CAMPAIGN_TRANSITIONS.request_payout, 'pay out');
      const payable = payableOf(state);
      if (p.amountMinor + p.feeMinor > payable) {
        throw new Refusal('IKW-FND-005', `The released funds not yet paid out (${payable}) do not cover ${p.amountMinor} plus its fee ${p.feeMinor}`, 'amountMinor');
      }
      return [{ type: 'funding_campaign.payout_requested', data: { payout: p } }];
    }
    case 'settle_payout': {
      const p = state.payouts.find((x) => x.id === command.campaignPayoutId);
      if (!p || p.status !== 'requested') return [];
      return [{ type: 'funding_campaign.payout_settled', data: { campaignPayoutId: p.id, status: command.status, failureReason: command.failureReason, at } }];
    }
    default:
      return unreachable(command);
  }
}

/** An all-or-nothing campaign needs a target and a deadline: without them it could never fail nor succeed. */
export function assertModel(c: Pick<CampaignCreated, 'fundingModel' | 'targetAmountMinor' | 'deadline'>): void {
  if (c.fundingModel !== 'all_or_nothing') return;
  if (c.targetAmountMinor === null) throw new Refusal('IKW-VAL-001', 'An all-or-nothing campaign needs targetAmountMinor', 'targetAmountMinor');
  if (c.deadline === null) throw new Refusal('IKW-VAL-001', 'An all-or-nothing campaign needs a deadline', 'deadline');
}

/**
 * Funding campaigns. Contributions, their outcomes and the campaign's end are decided on the
 * campaign's one stream, so that racing contributions count once each and none lands after close.
 */
export const fundingCampaignDecider: Decider<FundingCampaignCommand, FundingCampaignState, FundingCampaignFact> = {
  initialState: initialFundingCampaignState,
  evolve,
  decide,
};
