import { isRefused, Refusal } from '#packages/core/refusal.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { assertOwned, isOwned } from '#packages/core/aggregate.js';
import { loadPayoutMethod, payoutIdOf } from '#packages/families/payouts/index.js';
import { payableOf } from './decider.js';
import { CONTRIBUTION_METADATA, type CampaignPayout } from './events.js';
import { type Actor, type Owner, UNATTENDED } from '#packages/core/owner.js';
import type { CampaignPayoutRef, FundingCampaignCommits, FundingDeps } from './commands.js';

export interface PayoutInput {
  payoutMethodId?: string;
  amountMinor?: number;
}

/** When the mend of a claimed payout runs: well after the request that claimed it has finished. */
const PAYOUT_MEND_AFTER_MS = 60_000;

/** The request reference of a campaign payout's payout: its id follows from it (payoutIdOf). */
const fundingPayoutRef = (campaignPayoutId: string) => `funding_payout:${campaignPayoutId}`;

/**
 * Payouts of a closed campaign's released funds (docs/funding.md): claimed on the campaign, then
 * made as payouts, and mended when a crash fell between the two.
 */
export class CampaignPayouts {
  constructor(
    private readonly deps: FundingDeps,
    private readonly commits: FundingCampaignCommits,
  ) {}

  /**
   * A payout of released funds to a payout method (the campaign's by default). Without an amount
   * it takes all that remains, its fee included. The campaign claims the amount on its stream
   * first (nothing is paid out twice), then the payout is made under an id derived from the claim.
   */
  async payOut(owner: Owner, id: string, input: PayoutInput, actor: Actor, requestRef?: string): Promise<CampaignPayout> {
    const { state } = await this.commits.load(id);
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
    await this.commits.run(id, { type: 'request_payout', owner, at: this.deps.clock.now(), payout }, this.commits.metadata(owner, id, actor));
    return this.sendPayout(owner, id, campaignPayoutId, actor);
  }

  /** Makes the payout of a claim still `requested` (its id derived from the claim: made once), and records how it went. */
  private async sendPayout(owner: Owner, id: string, campaignPayoutId: string, actor: Actor): Promise<CampaignPayout> {
    const { state } = await this.commits.load(id);
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
    const settled = await this.commits.run(id, { type: 'settle_payout', owner, at: this.deps.clock.now(), campaignPayoutId, status, failureReason }, this.commits.metadata(owner, id, actor));
    return settled.state.payouts.find((p) => p.id === campaignPayoutId)!;
  }

  /** The crash mend of a payout: finishes a claim left `requested`; nothing when there is no claim or it was settled. */
  async mendPayout(ref: CampaignPayoutRef): Promise<void> {
    const owner = { merchantId: ref.merchantId, environment: ref.environment };
    const { state } = await this.commits.load(ref.campaignId);
    if (!state.payouts.some((p) => p.id === ref.campaignPayoutId)) return;
    await this.sendPayout(owner, ref.campaignId, ref.campaignPayoutId, { actor: 'scheduler' });
  }
}
