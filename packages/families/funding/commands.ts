import { getCountry, getCurrency, listCountries, normalizeMsisdn } from '../../catalog/index.js';
import type { Clock } from '../../core/clock.js';
import { isRefused, Refusal } from '../../core/refusal.js';
import { derivedUuid, newUuid, randomBase62 } from '../../core/ids.js';
import { CommandService, handleSteps, loadState, step, type AnyStep } from '../../eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import type { Enqueue } from '../../scheduler/scheduler.js';
import { assertOwned, isOwned } from '../../core/aggregate.js';
import { ledgerCommand } from '../ledger/index.js';
import { ledgerDecider } from '../../ledger/decider.js';
import { moveCampaignFunds, type CampaignMove } from './postings.js';
import { balanceStream } from '../ledger/index.js';
import { HELD_BY_KEY, type ConfirmInput, type PaymentIntents } from '../payments/index.js';
import type { PaymentRecipient } from '../payments/index.js';
import { paymentIntentAggregate, toObject as toPaymentIntentObject } from '../payments/index.js';
import { payinClearing, paymentIntentStream } from '../payments/index.js';
import { loadPayoutMethod } from '../payouts/index.js';
import { payoutIdOf, type PayoutCreation } from '../payouts/index.js';
import type { CountPublicPush } from '../../core/public-pushes.js';
import type { RailRefunds } from '../payments/index.js';
import type { RailRefundRecord } from '../payments/index.js';
import {
  assertModel,
  payableOf,
  type FundingCampaignCommand,
  type FundingCampaignState,
  type PaymentOutcome,
} from './decider.js';
import { fundingCampaignAggregate, toCampaignObject, toContributionObject } from './render.js';
import {
  CONTRIBUTION_METADATA,
  fundingCampaignStream,
  type CampaignChanges,
  type CampaignObject,
  type CampaignPayout,
  type Clearing,
  type ContributionObject,
  type FundingCampaignFact,
  type FundingModel,
} from './events.js';
import { type Actor, type Owner, UNATTENDED } from '../../core/owner.js';
import { auditMetadata } from '../../eventstore/metadata.js';

export interface CreateCampaignInput {
  title: string;
  description?: string | null;
  targetAmountMinor?: number | null;
  currency: string;
  deadline?: string | null;
  country?: string | null;
  metadata?: string | null;
  fundingModel?: FundingModel;
  payoutMethodId?: string | null;
}

export interface ContributeInput {
  campaignId: string;
  amountMinor: number;
  currency: string;
  idempotencyKey?: string | null;
  contributorName?: string | null;
  contributorEmail?: string | null;
  metadata?: string | null;
  anonymous?: boolean;
  message?: string | null;
  /** Pays at once: the contribution's intent is confirmed with it. */
  paymentMethod?: ConfirmInput['payment_method'];
  returnUrl?: string;
}

export interface PayoutInput {
  payoutMethodId?: string;
  amountMinor?: number;
}

/** A campaign as its timers and jobs name it. */
export type CampaignRef = Owner & { campaignId: string };
/** A payout of a campaign's released funds, as its crash mend names it. */
export type CampaignPayoutRef = CampaignRef & { campaignPayoutId: string };
/** A contribution's payment intent reached a final status. */
export type ContributionPaymentRef = CampaignRef & { contributionId: string; paymentIntentId: string };

export interface FundingDeps {
  store: EventStore;
  clock: Clock;
  publicUrl: string;
  paymentIntents: PaymentIntents;
  payouts: PayoutCreation;
  /** Contributions paid through a rail keeping Sika's money are given back through it (docs/connectors.md, "Refunds through a rail"). */
  railRefunds: RailRefunds;
  /** The campaign a contribution belongs to, if the contribution is this owner's (read model). */
  campaignOfContribution(owner: Owner, contributionId: string): Promise<string | undefined>;
  /** The deadline timer of a published campaign. */
  scheduleDeadline: Enqueue<CampaignRef>;
  /** The mend of a payout claimed on the campaign but not made (a crash in between). */
  schedulePayoutMend: Enqueue<CampaignPayoutRef>;
  /** Contributions from the campaign's public page push to a phone with no credential behind them: counted. */
  countPublicPush: CountPublicPush;
}

/** When the mend of a claimed payout runs: well after the request that claimed it has finished. */
const PAYOUT_MEND_AFTER_MS = 60_000;

const SLUG_LENGTH = 16;
/** Attempts at a move of held funds that keeps meeting a changed campaign (each lost race means another succeeded). */
const MOVE_ATTEMPTS = 50;


/** The ledger moves that a campaign's new events make (docs/funding.md has their diagrams). */
function movesOf(state: FundingCampaignState, events: FundingCampaignFact[]): CampaignMove[] {
  const moves: CampaignMove[] = [];
  const clearings = new Map<string, Clearing>();
  for (const e of events) {
    switch (e.type) {
      case 'funding_campaign.contribution_received':
        clearings.set(e.data.contributionId, e.data.clearing);
        moves.push({ kind: 'contribution', source: e.data.contributionId, clearing: e.data.clearing, amount: state.contributions.get(e.data.contributionId)!.amountMinor });
        break;
      case 'funding_campaign.contribution_refunded': {
        const id = e.data.contributionId;
        const clearing = clearings.get(id) ?? state.contributions.get(id)!.clearing!;
        moves.push({ kind: e.data.fromReleased ? 'refund_released' : 'refund', source: id, clearing, amount: state.contributions.get(id)!.amountMinor });
        break;
      }
      case 'funding_campaign.closed':
        if (e.data.released > 0) moves.push({ kind: 'release', source: state.campaign!.id, amount: e.data.released, fee: e.data.fee });
        break;
      default:
        break;
    }
  }
  return moves;
}

/** The request reference of a campaign payout's payout: its id follows from it (payoutIdOf). */
const fundingPayoutRef = (campaignPayoutId: string) => `funding_payout:${campaignPayoutId}`;

/**
 * Funding campaigns and their contributions (docs/funding.md). Contributions are paid through
 * payment intents whose funds the campaign holds on its ledger account (`campaign:<id>`); every
 * change of those funds is the campaign's event and its ledger entry in one commit.
 */
export class FundingCampaigns extends CommandService<FundingCampaignCommand, FundingCampaignState, FundingCampaignFact> {
  constructor(private readonly deps: FundingDeps) {
    super(deps.store, fundingCampaignStream, fundingCampaignAggregate, { onConflict: 'contended' });
    // A contribution given back stays refunded whatever the rail answers (a failed give-back's money returns to the account it left, for review);
    // its refund's answer is recorded on it, in the refund's end, for the organizer's reconciliation.
    deps.railRefunds.follow('funding_contribution', (refund, outcome, meta) => {
      if (refund.origin.family !== 'funding_contribution') return [];
      const owner = { merchantId: refund.merchantId, environment: refund.environment };
      const failureCode = outcome.status === 'failed' ? outcome.failureCode : null;
      const command: FundingCampaignCommand = { type: 'settle_refund', owner, at: deps.clock.now(), contributionId: refund.id, status: outcome.status, failureCode };
      return [step({ streamId: fundingCampaignStream(refund.origin.campaignId), decider: fundingCampaignAggregate, command, metadata: meta })];
    });
  }

  private meta(owner: Owner, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, owner, id, actor);
  }

  async create(owner: Owner, input: CreateCampaignInput, actor: Actor, requestRef?: string): Promise<CampaignObject> {
    const currency = getCurrency(input.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const country = this.countryOf(input.country ?? null, currency.code);
    const now = this.deps.clock.now();
    if (input.deadline != null && Date.parse(input.deadline) <= now.getTime()) throw new Refusal('IKW-VAL-001', 'deadline must be in the future', 'deadline');
    const fundingModel = input.fundingModel ?? 'keep_what_you_raise';
    const deadline = input.deadline != null ? new Date(input.deadline).toISOString() : null;
    assertModel({ fundingModel, targetAmountMinor: input.targetAmountMinor ?? null, deadline });
    if (input.payoutMethodId != null) await this.assertPayoutMethod(owner, input.payoutMethodId);
    const id = requestRef === undefined ? newUuid() : derivedUuid(`funding_campaign|${owner.merchantId}|${owner.environment}|${requestRef}`);
    if (requestRef !== undefined) {
      const earlier = await this.load(id);
      if (earlier.state.campaign) return toCampaignObject(earlier.state);
    }
    const slug = randomBase62(SLUG_LENGTH);
    const result = await this.run(
      id,
      {
        type: 'create',
        campaign: {
          id,
          merchantId: owner.merchantId,
          environment: owner.environment,
          slug,
          url: `${this.deps.publicUrl}/funding/${slug}`,
          title: input.title,
          description: input.description ?? null,
          targetAmountMinor: input.targetAmountMinor ?? null,
          currency: currency.code.toLowerCase(),
          country: country.code,
          deadline,
          fundingModel,
          payoutMethodId: input.payoutMethodId ?? null,
          metadata: input.metadata ?? null,
          createdAt: now.toISOString(),
        },
      },
      this.meta(owner, id, actor),
    );
    return toCampaignObject(result.state);
  }

  /** The campaign's country: the one given (in the currency's zone), or the only catalog country of the currency. */
  private countryOf(code: string | null, currency: string) {
    if (code !== null) {
      const country = getCountry(code);
      if (!country) throw new Refusal('IKW-VAL-004', `Unsupported country '${code}'`, 'country');
      if (country.currency !== currency) throw new Refusal('IKW-VAL-009', `${country.code} payments are in ${country.currency.toLowerCase()}, not ${currency.toLowerCase()}`, 'currency');
      return country;
    }
    const candidates = listCountries().filter((c) => c.currency === currency);
    if (candidates.length !== 1) {
      throw new Refusal('IKW-VAL-001', candidates.length === 0 ? `No supported country collects ${currency.toLowerCase()}` : `Name the country: ${currency.toLowerCase()} is collected in ${candidates.map((c) => c.code).join(', ')}`, 'country');
    }
    return candidates[0]!;
  }

  private async assertPayoutMethod(owner: Owner, id: string): Promise<void> {
    const method = (await loadPayoutMethod(this.deps.store, id)).method;
    if (!isOwned(method, owner)) throw new Refusal('IKW-PAY-002', `No such payout method: '${id}'`, 'payoutMethodId');
  }

  async update(owner: Owner, id: string, changes: CampaignChanges, actor: Actor): Promise<CampaignObject> {
    if (changes.deadline != null) {
      if (Date.parse(changes.deadline) <= this.deps.clock.now().getTime()) throw new Refusal('IKW-VAL-001', 'deadline must be in the future', 'deadline');
      changes = { ...changes, deadline: new Date(changes.deadline).toISOString() };
    }
    if (changes.payoutMethodId != null) await this.assertPayoutMethod(owner, changes.payoutMethodId);
    const result = await this.run(id, { type: 'update', owner, at: this.deps.clock.now(), changes }, this.meta(owner, id, actor), 'none');
    return toCampaignObject(result.state);
  }

  /** Publishes: the page takes contributions. The deadline timer is set first, so a crash cannot leave an active campaign without one. */
  async publish(owner: Owner, id: string, actor: Actor): Promise<CampaignObject> {
    const { state } = await this.load(id);
    if (isOwned(state.campaign, owner) && state.campaign.deadline && state.status === 'draft') {
      await this.deps.scheduleDeadline({ ...owner, campaignId: id }, new Date(state.campaign.deadline));
    }
    const result = await this.run(id, { type: 'publish', owner, at: this.deps.clock.now() }, this.meta(owner, id, actor), 'none');
    return toCampaignObject(result.state);
  }

  /**
   * A change of the held funds: the campaign's events and their ledger entry in one commit. The
   * command is decided on the state read here to know the moves; should the campaign have moved
   * meanwhile, the decider refuses it as stale and it is decided again on the fresh state.
   */
  private async moveFunds(id: string, meta: EventMetadata, command: (state: FundingCampaignState) => FundingCampaignCommand): Promise<FundingCampaignState> {
    for (let attempt = 0; ; attempt++) {
      const { state } = await this.load(id);
      const next = command(state);
      try {
        const moves = movesOf(state, fundingCampaignAggregate.decide(next, state));
        const campaignStep = step({ streamId: fundingCampaignStream(id), decider: fundingCampaignAggregate, command: next, metadata: meta });
        const steps = [campaignStep];
        const railRefunds: RailRefundRecord[] = [];
        if (moves.length > 0) {
          const c = state.campaign!;
          const balance = { merchantId: c.merchantId, environment: c.environment, currency: c.currency };
          const ledger = ledgerCommand(this.deps.clock, balance, moveCampaignFunds(id, moves));
          steps.push(step({ streamId: balanceStream(c.merchantId, c.environment, c.currency), decider: ledgerDecider, command: ledger, metadata: meta }));
          railRefunds.push(...(await this.railRefundsOf(state, moves)));
          for (const refund of railRefunds) steps.push(await this.deps.railRefunds.request(refund, meta));
        }
        const [result] = await handleSteps(this.deps.store, steps, { onConflict: 'none' });
        for (const refund of railRefunds) await this.deps.railRefunds.send(refund);
        return result!.state as FundingCampaignState;
      } catch (err) {
        if (isRefused(err, 'IKW-RES-003') && attempt < MOVE_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /** Closes: the held funds go to the organizer's balance (fees taken), then to the campaign's payout method if it has one. */
  async close(owner: Owner, id: string, actor: Actor): Promise<CampaignObject> {
    const meta = this.meta(owner, id, actor);
    const at = this.deps.clock.now();
    const state = await this.moveFunds(id, meta, (s) => ({ type: 'close', owner, at, reason: 'organizer', moneyVersion: s.moneyVersion }));
    return toCampaignObject(await this.afterEnd(owner, id, state, actor));
  }

  /** Cancels: every succeeded contribution is refunded, pending ones are canceled. */
  async cancel(owner: Owner, id: string, actor: Actor): Promise<CampaignObject> {
    const meta = this.meta(owner, id, actor);
    const at = this.deps.clock.now();
    const state = await this.moveFunds(id, meta, (s) => ({ type: 'cancel', owner, at, moneyVersion: s.moneyVersion }));
    return toCampaignObject(await this.afterEnd(owner, id, state, actor));
  }

  /** The deadline timer: fails (and refunds) an all-or-nothing campaign below target, closes any other. Idempotent. */
  async expire(ref: CampaignRef): Promise<void> {
    const owner = { merchantId: ref.merchantId, environment: ref.environment };
    const actor = { actor: 'scheduler' };
    const at = this.deps.clock.now();
    const state = await this.moveFunds(ref.campaignId, this.meta(owner, ref.campaignId, actor), (s) => ({ type: 'expire', owner, at, moneyVersion: s.moneyVersion }));
    await this.afterEnd(owner, ref.campaignId, state, actor);
  }

  /** Once a campaign ended: pending contributions' intents are canceled; a closed campaign with a payout method is paid out. */
  private async afterEnd(owner: Owner, id: string, state: FundingCampaignState, actor: Actor): Promise<FundingCampaignState> {
    if (state.status === 'active' || state.status === 'draft') return state;
    for (const c of state.contributions.values()) {
      if (c.status !== 'pending') continue;
      await this.cancelContributionOf(owner, id, c.id, actor).catch((err: unknown) => {
        // An intent already with the operator cannot be canceled: if it succeeds, the campaign gives it back.
        if (!isRefused(err)) throw err;
      });
    }
    const after = (await this.load(id)).state;
    if (after.status === 'closed' && after.campaign!.payoutMethodId && payableOf(after) > 0 && after.payouts.length === 0) {
      await this.payOut(owner, id, {}, actor).catch((err: unknown) => {
        // The funds stay in the organizer's balance; a payout by hand takes them.
        if (!isRefused(err)) throw err;
      });
      return (await this.load(id)).state;
    }
    return after;
  }

  /**
   * A contribution: its payment intent (named after the contribution, so a retry finds it), then
   * the contribution on the campaign's stream, refused there if the campaign no longer takes any.
   * With `paymentMethod` the intent is confirmed at once.
   */
  async contribute(owner: Owner, input: ContributeInput, actor: Actor, requestRef?: string, from: 'merchant' | 'public_page' = 'merchant'): Promise<ContributionObject> {
    const { state } = await this.load(input.campaignId);
    const campaign = state.campaign;
    assertOwned(campaign, owner, `No such funding campaign: '${input.campaignId}'`, 'campaignId');
    const seed = input.idempotencyKey ?? requestRef;
    const id = seed == null ? newUuid() : derivedUuid(`funding_contribution|${owner.merchantId}|${owner.environment}|${campaign.id}|${seed}`);
    const pm = input.paymentMethod;
    // A number the intent would refuse is left to its refusal (IKW-VAL-007), uncounted.
    const pushTo = from === 'public_page' && pm?.type === 'mobile_money' ? normalizeMsisdn(pm.mobile_money.msisdn, pm.mobile_money.country) : null;
    const countPush = () => (pushTo ? this.deps.countPublicPush({ environment: owner.environment, msisdn: pushTo, checkoutSessionId: null, link: `funding_campaign:${campaign.id}` }) : Promise.resolve());
    if (!state.contributions.has(id)) {
      const at = this.deps.clock.now();
      // Refusals on the merits before an intent exists; the append below decides again on the stream.
      fundingCampaignAggregate.decide({ type: 'contribute', owner, at, contribution: { id, campaignId: campaign.id, paymentIntentId: '', amountMinor: input.amountMinor, currency: input.currency.toLowerCase(), contributorName: null, contributorEmail: null, anonymous: false, message: null, metadata: null, createdAt: at.toISOString() } }, state);
      // Counted before anything is made: a refused push leaves no contribution behind.
      await countPush();
      const intent = await this.deps.paymentIntents.create(
        owner,
        {
          amount: input.amountMinor,
          currency: input.currency,
          transactionCountry: campaign.country,
          description: campaign.title.slice(0, 500),
          metadata: { [CONTRIBUTION_METADATA.campaign]: campaign.id, [CONTRIBUTION_METADATA.contribution]: id },
          // Typed by whoever contributes: a card is never kept on a customer it only matched.
          ...(input.contributorEmail ? { customerEmail: input.contributorEmail, payerTyped: true } : {}),
        },
        actor,
        `funding_contribution:${id}`,
        { [HELD_BY_KEY]: `funding_campaign:${campaign.id}` },
      );
      try {
        await this.run(
          campaign.id,
          {
            type: 'contribute',
            owner,
            at,
            contribution: {
              id,
              campaignId: campaign.id,
              paymentIntentId: intent.id,
              amountMinor: input.amountMinor,
              currency: input.currency.toLowerCase(),
              contributorName: input.contributorName ?? null,
              contributorEmail: input.contributorEmail ?? null,
              anonymous: input.anonymous ?? false,
              message: input.message ?? null,
              metadata: input.metadata ?? null,
              createdAt: at.toISOString(),
            },
          },
          this.meta(owner, campaign.id, actor),
        );
      } catch (err) {
        // Refused for good (closed meanwhile): the intent made for it is canceled, so nobody pays
        // it. A failure the client may retry (a conflict, a deadlock's victim, a lost connection)
        // leaves it for the retry, which finds the same intent by its key and contributes with it.
        if (isRefused(err) && !err.retryable) await this.deps.paymentIntents.cancel(owner, intent.id, 'abandoned', actor).catch(() => undefined);
        throw err;
      }
    } else if (state.contributions.get(id)?.status === 'pending') {
      await countPush(); // a repeat that pays the contribution made before
    }
    const now = (await this.load(campaign.id)).state;
    // A repeat of a contribution already paid (or failed) answers it as it is.
    if (!input.paymentMethod || now.contributions.get(id)?.status !== 'pending') return toContributionObject(now, id);
    // Every request naming this contribution (its key) is the one that pays it: retried after its
    // process died while the operator held the confirmation's answer, it answers the contribution
    // (pending, the status check decides) rather than 409 "confirmation in progress".
    const confirmRef = seed == null ? undefined : `funding_contribution:${id}`;
    return this.confirm(owner, campaign.id, id, { payment_method: input.paymentMethod, ...(input.returnUrl ? { return_url: input.returnUrl } : {}) }, actor, confirmRef);
  }

  private async campaignOf(owner: Owner, contributionId: string): Promise<string> {
    const campaignId = await this.deps.campaignOfContribution(owner, contributionId);
    if (!campaignId) throw new Refusal('IKW-RES-001', `No such contribution: '${contributionId}'`, 'contributionId');
    return campaignId;
  }

  /** Pays a pending contribution through its intent; the outcome reaches the campaign by the payment's events. */
  async confirmContribution(owner: Owner, contributionId: string, input: ConfirmInput, actor: Actor, requestRef?: string): Promise<ContributionObject> {
    return this.confirm(owner, await this.campaignOf(owner, contributionId), contributionId, input, actor, requestRef);
  }

  /** `requestRef` names the request confirming: the same one retried after its process died answers the contribution as it stands. */
  private async confirm(owner: Owner, campaignId: string, contributionId: string, input: ConfirmInput, actor: Actor, requestRef?: string): Promise<ContributionObject> {
    const { state } = await this.load(campaignId);
    const c = state.contributions.get(contributionId);
    if (!c) throw new Refusal('IKW-RES-001', `No such contribution: '${contributionId}'`, 'contributionId');
    if (c.status !== 'pending') throw new Refusal('IKW-FND-004', `The contribution is ${c.status}; only a pending contribution can be paid`, 'contributionId');
    if (state.status !== 'active') throw new Refusal('IKW-FND-002', `The campaign is ${state.status}: it takes no contributions`, 'campaignId');
    const intent = await this.deps.paymentIntents.confirm(owner, c.paymentIntentId, input, actor, requestRef);
    // A sandbox or card answer may be final already: the campaign learns it now rather than from the bus.
    if (intent.status === 'succeeded' || intent.status === 'failed' || intent.status === 'canceled') {
      await this.recordPayment({ ...owner, campaignId, contributionId, paymentIntentId: intent.id });
    }
    return toContributionObject((await this.load(campaignId)).state, contributionId);
  }

  /** A contribution's intent is final: the campaign counts it (and holds its funds) or marks it failed. Idempotent. */
  async recordPayment(ref: ContributionPaymentRef): Promise<void> {
    const owner = { merchantId: ref.merchantId, environment: ref.environment };
    const { state: pi } = await loadState(this.deps.store, paymentIntentStream(ref.paymentIntentId), paymentIntentAggregate);
    if (!isOwned(pi.intent, owner)) return;
    let outcome: PaymentOutcome;
    if (pi.status === 'succeeded' && pi.paymentMethod) outcome = { status: 'succeeded', fee: pi.fee ?? 0, clearing: payinClearing(pi.paymentMethod, pi.confirmation?.connector) };
    else if (pi.status === 'failed' || pi.status === 'canceled') outcome = { status: pi.status };
    else return;
    const at = this.deps.clock.now();
    await this.moveFunds(ref.campaignId, this.meta(owner, ref.campaignId, { actor: 'funding', causationId: ref.paymentIntentId }), (s) => ({
      type: 'record_payment',
      owner,
      at,
      contributionId: ref.contributionId,
      paymentIntentId: ref.paymentIntentId,
      outcome,
      moneyVersion: s.moneyVersion,
    }));
  }

  /**
   * A contribution's payment succeeding, as steps of the payment's own commit (PaymentIntents
   * applyCallback): the campaign counts the contribution and its money lands on the campaign's
   * account, so no read shows the payment succeeded without them. Decided on the campaign as it
   * stands; should it change before the commit, the commit fails whole and the operator's answer
   * is applied again. The campaign holds every payment marked HELD_BY_KEY: one that pays no
   * contribution of this owner posts nothing (the campaign's process sorts it out).
   */
  readonly paymentRecipient: PaymentRecipient = {
    name: 'funding_campaign',
    moneyOf: async ({ intent, fee, clearing }, meta) => {
      if (intent.metadata[HELD_BY_KEY] === undefined) return null;
      const money = await this.paymentSteps(intent, { fee, clearing }, meta);
      const railRefunds = money?.railRefunds ?? [];
      // A contribution paid after its campaign ended is given back in the payment's commit; its refund is sent once that commit is made.
      const after = railRefunds.length === 0 ? null : async () => {
        for (const refund of railRefunds) await this.deps.railRefunds.send(refund);
      };
      return { steps: money?.steps ?? [], after };
    },
    assertRefundable: async ({ intent }) => {
      if (intent.metadata[HELD_BY_KEY] === undefined) return;
      const contribution = intent.metadata[CONTRIBUTION_METADATA.contribution] ?? '{id}';
      throw new Refusal('IKW-FND-006', `Payment ${intent.id} is a contribution to a funding campaign; refund it with POST /api/v1/funding/contributions/${contribution}/refund`, 'paymentId');
    },
  };

  private async paymentSteps(
    intent: { id: string; merchantId: string; environment: Owner['environment']; metadata: Record<string, string> },
    payment: { fee: number; clearing: Clearing },
    meta: EventMetadata,
  ): Promise<{ steps: AnyStep[]; railRefunds: RailRefundRecord[] } | null> {
    const owner = { merchantId: intent.merchantId, environment: intent.environment };
    const campaignId = intent.metadata[CONTRIBUTION_METADATA.campaign];
    const contributionId = intent.metadata[CONTRIBUTION_METADATA.contribution];
    if (!campaignId || !contributionId) return null;
    const { state } = await this.load(campaignId);
    if (!isOwned(state.campaign, owner)) return null;
    const command: FundingCampaignCommand = {
      type: 'record_payment',
      owner,
      at: this.deps.clock.now(),
      contributionId,
      paymentIntentId: intent.id,
      outcome: { status: 'succeeded', fee: payment.fee, clearing: payment.clearing },
      moneyVersion: state.moneyVersion,
    };
    const moves = movesOf(state, fundingCampaignAggregate.decide(command, state));
    const steps = [step({ streamId: fundingCampaignStream(campaignId), decider: fundingCampaignAggregate, command, metadata: meta })];
    const railRefunds: RailRefundRecord[] = [];
    if (moves.length > 0) {
      const c = state.campaign!;
      const ledger = ledgerCommand(this.deps.clock, { merchantId: c.merchantId, environment: c.environment, currency: c.currency }, moveCampaignFunds(campaignId, moves));
      steps.push(step({ streamId: balanceStream(c.merchantId, c.environment, c.currency), decider: ledgerDecider, command: ledger, metadata: meta }));
      railRefunds.push(...(await this.railRefundsOf(state, moves)));
      for (const refund of railRefunds) steps.push(await this.deps.railRefunds.request(refund, meta));
    }
    return { steps, railRefunds };
  }

  /**
   * The refunds among a campaign's moves that go back through a rail keeping Sika's money: each
   * contribution given back is refunded through the rail its payment came in by, under the
   * contribution's id (the source of its ledger entry). IKW-PRV-006 when that rail's connector is
   * not configured any more: nothing could carry it, nothing is recorded (a job retries).
   */
  private async railRefundsOf(state: FundingCampaignState, moves: CampaignMove[]): Promise<RailRefundRecord[]> {
    const c = state.campaign!;
    const refunds: RailRefundRecord[] = [];
    for (const move of moves) {
      if ((move.kind !== 'refund' && move.kind !== 'refund_released') || !move.clearing.startsWith('rail_clearing:')) continue;
      const contribution = state.contributions.get(move.source)!;
      const { state: payment } = await loadState(this.deps.store, paymentIntentStream(contribution.paymentIntentId), paymentIntentAggregate);
      const connector = move.clearing.slice('rail_clearing:'.length);
      if (!this.deps.railRefunds.canRefund(c.environment, connector)) {
        throw new Refusal('IKW-PRV-006', `The contribution came in through ${connector}, which is not configured on this service any more: nothing can carry its refund; nothing was refunded`, 'contributionId');
      }
      refunds.push({
        id: move.source,
        connector,
        operationId: payment.confirmation!.operationId,
        merchantId: c.merchantId,
        environment: c.environment,
        amount: move.amount,
        currency: c.currency,
        origin: { family: 'funding_contribution', campaignId: c.id },
        requestedAt: this.deps.clock.now().toISOString(),
      });
    }
    return refunds;
  }

  /** What the contributor must do next for the payment (approve on the phone, a 3-D Secure page), if anything. */
  async nextActionOf(owner: Owner, paymentIntentId: string): Promise<unknown> {
    const { state } = await loadState(this.deps.store, paymentIntentStream(paymentIntentId), paymentIntentAggregate);
    if (!isOwned(state.intent, owner)) return null;
    return toPaymentIntentObject(state).next_action;
  }

  /**
   * Refunds one contribution in full: from the campaign's account, or from the organizer's balance
   * once released. `requestRef` (the Idempotency-Key with the body's fingerprint) is recorded on the
   * give-back, so a request retried after a crash answers the contribution its first attempt gave
   * back (its refund sent once) rather than IKW-FND-004; any other request is still refused.
   */
  async refundContribution(owner: Owner, contributionId: string, actor: Actor, requestRef?: string): Promise<ContributionObject> {
    const campaignId = await this.campaignOf(owner, contributionId);
    // Its own give-back found again, the decider decides nothing: no move, nothing sent.
    const request = requestRef === undefined ? undefined : derivedUuid(`funding_give_back|${owner.merchantId}|${owner.environment}|${contributionId}|${requestRef}`);
    const at = this.deps.clock.now();
    const state = await this.moveFunds(campaignId, this.meta(owner, campaignId, actor), (s) => ({
      type: 'refund_contribution',
      owner,
      at,
      contributionId,
      moneyVersion: s.moneyVersion,
      ...(request !== undefined ? { request } : {}),
    }));
    return toContributionObject(state, contributionId);
  }

  /** Abandons a pending contribution: its intent is canceled (refused while the operator has it). */
  async cancelContribution(owner: Owner, contributionId: string, actor: Actor): Promise<ContributionObject> {
    const campaignId = await this.campaignOf(owner, contributionId);
    return toContributionObject(await this.cancelContributionOf(owner, campaignId, contributionId, actor), contributionId);
  }

  private async cancelContributionOf(owner: Owner, campaignId: string, contributionId: string, actor: Actor): Promise<FundingCampaignState> {
    const { state } = await this.load(campaignId);
    const c = state.contributions.get(contributionId);
    if (!c) throw new Refusal('IKW-RES-001', `No such contribution: '${contributionId}'`, 'contributionId');
    if (c.status === 'pending') await this.deps.paymentIntents.cancel(owner, c.paymentIntentId, 'abandoned', actor);
    const result = await this.run(campaignId, { type: 'cancel_contribution', owner, at: this.deps.clock.now(), contributionId }, this.meta(owner, campaignId, actor));
    return result.state;
  }

  async postUpdate(owner: Owner, id: string, input: { title: string; body: string }, actor: Actor, requestRef?: string): Promise<CampaignObject & { update: unknown }> {
    const updateId = requestRef === undefined ? newUuid() : derivedUuid(`funding_update|${owner.merchantId}|${owner.environment}|${id}|${requestRef}`);
    const update = { id: updateId, title: input.title, body: input.body, createdAt: this.deps.clock.now().toISOString(), editedAt: null };
    const result = await this.run(id, { type: 'post_update', owner, at: this.deps.clock.now(), update }, this.meta(owner, id, actor));
    return { ...toCampaignObject(result.state), update: result.state.updates.find((u) => u.id === updateId) };
  }

  async editUpdate(owner: Owner, id: string, updateId: string, input: { title?: string; body?: string }, actor: Actor) {
    const result = await this.run(id, { type: 'edit_update', owner, at: this.deps.clock.now(), updateId, ...input }, this.meta(owner, id, actor));
    return result.state.updates.find((u) => u.id === updateId)!;
  }

  async deleteUpdate(owner: Owner, id: string, updateId: string, actor: Actor): Promise<{ id: string; deleted: true }> {
    await this.run(id, { type: 'delete_update', owner, at: this.deps.clock.now(), updateId }, this.meta(owner, id, actor));
    return { id: updateId, deleted: true };
  }

  /**
   * A payout of released funds to a payout method (the campaign's by default). Without an amount
   * it takes all that remains, its fee included. The campaign claims the amount on its stream
   * first (nothing is paid out twice), then the payout is made under an id derived from the claim.
   */
  async payOut(owner: Owner, id: string, input: PayoutInput, actor: Actor, requestRef?: string): Promise<CampaignPayout> {
    const { state } = await this.load(id);
    const campaign = state.campaign;
    assertOwned(campaign, owner, `No such funding campaign: '${id}'`, 'campaignId');
    if (state.status !== 'closed') throw new Refusal('IKW-FND-001', `Only a closed campaign's released funds are paid out; this one is ${state.status}`, 'campaignId');
    await this.deps.payouts.assertLiveOpen(owner);
    const payoutMethodId = input.payoutMethodId ?? campaign.payoutMethodId;
    if (!payoutMethodId) throw new Refusal('IKW-VAL-001', 'Name the payoutMethodId: the campaign has none', 'payoutMethodId');
    const method = (await loadPayoutMethod(this.deps.store, payoutMethodId)).method;
    if (!isOwned(method, owner)) throw new Refusal('IKW-PAY-002', `No such payout method: '${payoutMethodId}'`, 'payoutMethodId');
    const feeOf = (amount: number) => this.deps.payouts.quote(owner.environment, amount, method.destination);
    const payable = payableOf(state);
    if (payable <= 0) throw new Refusal('IKW-FND-005', 'Nothing released remains to be paid out', 'amountMinor');
    let amount = input.amountMinor ?? 0;
    if (input.amountMinor === undefined) {
      // The largest amount that fits with its own fee, in the steps the destination takes (an
      // operator may take whole currency units only). The fee never falls as the amount grows, so
      // amount + fee rises with it: halve between an estimate that fits (the fee priced on all that
      // remains, at least its own) and all that remains. What is left is less than one more step and
      // the fee it adds (at most 1 where any amount is taken): no payout can take it.
      const step = this.deps.payouts.amountStep(method.destination);
      const top = payable - (payable % step);
      if (top > 0) {
        amount = top - feeOf(top);
        amount -= amount % step;
        let over = top + step;
        while (amount > 0 && over - amount > step) {
          const mid = amount + step * Math.floor((over - amount) / step / 2);
          if (mid + feeOf(mid) <= payable) amount = mid;
          else over = mid;
        }
      }
    }
    if (amount <= 0) throw new Refusal('IKW-FND-005', `The released funds not yet paid out (${payable}) do not cover a payout and its fee`, 'amountMinor');
    const campaignPayoutId = requestRef === undefined ? newUuid() : derivedUuid(`funding_payout|${owner.merchantId}|${owner.environment}|${id}|${requestRef}`);
    // The id PayoutCreation.create gives this request reference: the claim names its payout before it exists.
    const payoutId = payoutIdOf(owner, 'api', fundingPayoutRef(campaignPayoutId));
    const payout: CampaignPayout = { id: campaignPayoutId, payoutId, payoutMethodId, amountMinor: amount, feeMinor: feeOf(amount), status: 'requested', failureReason: null, createdAt: this.deps.clock.now().toISOString() };
    // Should the process die between the claim and the payout, this job makes the payout.
    await this.deps.schedulePayoutMend({ ...owner, campaignId: id, campaignPayoutId }, new Date(this.deps.clock.now().getTime() + PAYOUT_MEND_AFTER_MS));
    await this.run(id, { type: 'request_payout', owner, at: this.deps.clock.now(), payout }, this.meta(owner, id, actor));
    return this.sendPayout(owner, id, campaignPayoutId, actor);
  }

  /** Makes the payout of a claim still `requested` (its id derived from the claim: made once), and records how it went. */
  private async sendPayout(owner: Owner, id: string, campaignPayoutId: string, actor: Actor): Promise<CampaignPayout> {
    const { state } = await this.load(id);
    const claim = state.payouts.find((p) => p.id === campaignPayoutId)!;
    if (claim.status !== 'requested') return claim;
    let status: 'created' | 'failed' = 'created';
    let failureReason: string | null = null;
    try {
      const metadata = { [CONTRIBUTION_METADATA.campaign]: id };
      await this.deps.payouts.create(owner, { amount: claim.amountMinor, currency: state.campaign!.currency, payout_method_id: claim.payoutMethodId, metadata }, UNATTENDED, 'api', actor, fundingPayoutRef(campaignPayoutId));
    } catch (err) {
      if (!isRefused(err)) throw err;
      status = 'failed';
      failureReason = `${err.code}: ${err.message}`;
    }
    const settled = await this.run(id, { type: 'settle_payout', owner, at: this.deps.clock.now(), campaignPayoutId, status, failureReason }, this.meta(owner, id, actor));
    return settled.state.payouts.find((p) => p.id === campaignPayoutId)!;
  }

  /** The crash mend of a payout: finishes a claim left `requested`; nothing when there is no claim or it was settled. */
  async mendPayout(ref: CampaignPayoutRef): Promise<void> {
    const owner = { merchantId: ref.merchantId, environment: ref.environment };
    const { state } = await this.load(ref.campaignId);
    if (!state.payouts.some((p) => p.id === ref.campaignPayoutId)) return;
    await this.sendPayout(owner, ref.campaignId, ref.campaignPayoutId, { actor: 'scheduler' });
  }
}
