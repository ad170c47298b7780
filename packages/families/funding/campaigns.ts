import { getCountry, getCurrency, listCountries } from '#packages/catalog/index.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { derivedUuid, newUuid, randomBase62 } from '#packages/core/ids.js';
import { isOwned } from '#packages/core/aggregate.js';
import { loadPayoutMethod } from '#packages/families/payouts/index.js';
import { assertModel, payableOf, type FundingCampaignState } from './decider.js';
import { toCampaignObject } from './render.js';
import type { CampaignChanges, CampaignObject, FundingModel } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import type { CampaignRef, FundingCampaignCommits, FundingDeps } from './commands.js';
import type { FundingContributions } from './contributions.js';
import type { CampaignPayouts } from './payouts.js';

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

const SLUG_LENGTH = 16;

/**
 * A campaign's life (docs/funding.md): created, changed and published by its organizer, then ended
 * by a close, a cancel or its deadline, which release or give back what it holds.
 */
export class FundingCampaigns {
  constructor(
    private readonly deps: FundingDeps,
    private readonly commits: FundingCampaignCommits,
    private readonly contributions: FundingContributions,
    private readonly payouts: CampaignPayouts,
  ) {}

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
      const earlier = await this.commits.load(id);
      if (earlier.state.campaign) return toCampaignObject(earlier.state);
    }
    const slug = randomBase62(SLUG_LENGTH);
    const result = await this.commits.run(
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
      this.commits.metadata(owner, id, actor),
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
      throw new Refusal(
        'IKW-VAL-001',
        candidates.length === 0 ? `No supported country collects ${currency.toLowerCase()}` : `Name the country: ${currency.toLowerCase()} is collected in ${candidates.map((c) => c.code).join(', ')}`,
        'country',
      );
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
    const result = await this.commits.run(id, { type: 'update', owner, at: this.deps.clock.now(), changes }, this.commits.metadata(owner, id, actor), 'none');
    return toCampaignObject(result.state);
  }

  /** Publishes: the page takes contributions. The deadline timer is set first, so a crash cannot leave an active campaign without one. */
  async publish(owner: Owner, id: string, actor: Actor): Promise<CampaignObject> {
    const { state } = await this.commits.load(id);
    if (isOwned(state.campaign, owner) && state.campaign.deadline && state.status === 'draft') {
      await this.deps.scheduleDeadline({ ...owner, campaignId: id }, new Date(state.campaign.deadline));
    }
    const result = await this.commits.run(id, { type: 'publish', owner, at: this.deps.clock.now() }, this.commits.metadata(owner, id, actor), 'none');
    return toCampaignObject(result.state);
  }

  /** Closes: the held funds go to the organizer's balance (fees taken), then to the campaign's payout method if it has one. */
  async close(owner: Owner, id: string, actor: Actor): Promise<CampaignObject> {
    const meta = this.commits.metadata(owner, id, actor);
    const at = this.deps.clock.now();
    const state = await this.commits.moveFunds(id, meta, (s) => ({ type: 'close', owner, at, reason: 'organizer', moneyVersion: s.moneyVersion }));
    return toCampaignObject(await this.afterEnd(owner, id, state, actor));
  }

  /** Cancels: every succeeded contribution is refunded, pending ones are canceled. */
  async cancel(owner: Owner, id: string, actor: Actor): Promise<CampaignObject> {
    const meta = this.commits.metadata(owner, id, actor);
    const at = this.deps.clock.now();
    const state = await this.commits.moveFunds(id, meta, (s) => ({ type: 'cancel', owner, at, moneyVersion: s.moneyVersion }));
    return toCampaignObject(await this.afterEnd(owner, id, state, actor));
  }

  /** The deadline timer: fails (and refunds) an all-or-nothing campaign below target, closes any other. Idempotent. */
  async expire(ref: CampaignRef): Promise<void> {
    const owner = { merchantId: ref.merchantId, environment: ref.environment };
    const actor = { actor: 'scheduler' };
    const at = this.deps.clock.now();
    const state = await this.commits.moveFunds(ref.campaignId, this.commits.metadata(owner, ref.campaignId, actor), (s) => ({ type: 'expire', owner, at, moneyVersion: s.moneyVersion }));
    await this.afterEnd(owner, ref.campaignId, state, actor);
  }

  /** Once a campaign ended: pending contributions' intents are canceled; a closed campaign with a payout method is paid out. */
  private async afterEnd(owner: Owner, id: string, state: FundingCampaignState, actor: Actor): Promise<FundingCampaignState> {
    if (state.status === 'active' || state.status === 'draft') return state;
    for (const c of state.contributions.values()) {
      if (c.status !== 'pending') continue;
      await this.contributions.cancelContributionOf(owner, id, c.id, actor).catch((err: unknown) => {
        // An intent already with the operator cannot be canceled: if it succeeds, the campaign gives it back.
        if (!isRefused(err)) throw err;
      });
    }
    const after = (await this.commits.load(id)).state;
    if (after.status === 'closed' && after.campaign!.payoutMethodId && payableOf(after) > 0 && after.payouts.length === 0) {
      await this.payouts.payOut(owner, id, {}, actor).catch((err: unknown) => {
        // The funds stay in the organizer's balance; a payout by hand takes them.
        if (!isRefused(err)) throw err;
      });
      return (await this.commits.load(id)).state;
    }
    return after;
  }
}
