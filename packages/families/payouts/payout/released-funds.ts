import { Refusal } from '#packages/core/refusal.js';
import type { DomainEvent } from '#packages/core/decider.js';
import { handleSteps, step, type AnyStep, type CommandStep } from '#packages/eventstore/command-handler.js';
import type { Destination } from '../payout-method/events.js';
import type { Owner } from './decider.js';
import { payoutAggregate } from './render.js';
import { payoutStream, type PayoutCreated, type PayoutSource } from './events.js';
import { UNATTENDED, type Actor, type Requester } from '#packages/core/owner.js';
import type { PayoutCommits, PayoutDeps } from './commands.js';
import type { PayoutOperatorSide } from './operator-side.js';
import type { PayoutCreation } from './creation.js';

/** Payouts of funds a family released to the merchant (an escrow release, docs/escrow.md). */
export class ReleasedFundsPayouts {
  constructor(
    private readonly deps: PayoutDeps,
    private readonly commits: PayoutCommits,
    private readonly operatorSide: PayoutOperatorSide,
    private readonly creation: PayoutCreation,
  ) {}

  /**
   * A payout of funds a family released to the merchant (an escrow release, docs/escrow.md): its
   * hold comes out of the funding source its record names (`held`) instead of `available`, in one
   * commit with the family's own step (`ownStep`, given the payout's fee; it may refuse it). The
   * payout sends the released amount less its fee. The family names the payout, so a step retried
   * after a crash finds it.
   */
  async createFromReleased(
    owner: Owner,
    input: { payoutId: string; payoutMethodId: string; currency: string; amount: number; metadata: Record<string, string>; source: PayoutSource; held: Pick<PayoutCreated, 'escrow'> },
    ownStep: (fee: number) => CommandStep<unknown, unknown, DomainEvent>,
    actor: Actor,
    by: Requester | 'scheduled',
  ): Promise<{ payoutId: string; fee: number }> {
    const meta = this.commits.metadata(owner, input.payoutId, actor);
    const earlier = await this.commits.load(input.payoutId);
    if (earlier.state.payout) {
      await this.operatorSide.initiate(earlier.state, meta);
      return { payoutId: input.payoutId, fee: earlier.state.payout.fee };
    }
    const { destination } = await this.creation.destination(owner, { amount: input.amount, currency: input.currency, payout_method_id: input.payoutMethodId });
    await this.creation.assertLiveOpen(owner);
    this.deps.rails(owner.environment).assertCanPayOut(destination, { amount: input.amount, currency: destination.currency });
    const fee = this.creation.fee(input.amount, destination);
    const before = ownStep(fee);
    (await this.creation.allowance(owner, destination, 'payoutMethodId'))(input.amount - fee);
    const guard = await this.releasedFundsGuard(owner, destination, by, actor);
    const payout = await this.commits.prepare(owner, input.payoutId, {
      amount: input.amount - fee,
      fee,
      destination,
      payoutMethodId: input.payoutMethodId,
      metadata: input.metadata,
      source: input.source,
      ...input.held,
    });
    await this.commits.assertCovered(payout.payout, meta, [before, ...guard]);
    await this.creation.verifyDestination(owner, destination, by === 'scheduled' ? UNATTENDED : by, actor);
    // The family's step, the payout's hold out of the funds it released, the challenge used and the payout: one commit.
    if (!(await this.commits.open(payout, meta, 'contended', [before, ...guard]))) {
      await this.commits.scheduleMend(payout.payout);
      const steps = [before, ...guard, await this.commits.holdStep(owner, payout.payout, meta), step({ streamId: payoutStream(input.payoutId), decider: payoutAggregate, command: payout, metadata: meta })];
      await handleSteps(this.deps.store, steps, { onConflict: 'contended' });
    }
    await this.operatorSide.initiate((await this.commits.load(input.payoutId)).state, meta);
    return { payoutId: input.payoutId, fee };
  }

  /**
   * The rule of new destinations for funds a family releases (escrow): a saved payout method this
   * merchant never paid is under newDestinationsGuard when a request pays it, since its safety
   * delay may have run out unnoticed while the money sat held. A scheduled execution (auto-release,
   * a dispute's resolution) has nobody to answer a challenge: in live it never pays a destination
   * never paid (IKW-PAY-007; the release waits for a request that may give one).
   */
  private async releasedFundsGuard(owner: Owner, destination: Destination, by: Requester | 'scheduled', actor: Actor): Promise<AnyStep[]> {
    const never = await this.deps.history.neverPaid(owner, [destination]);
    if (by !== 'scheduled') return this.creation.newDestinationsGuard(owner, never, by, actor, 'payoutMethodId', 'API keys pay only payout methods paid before (inline_destinations_for_api_keys is false)');
    if (owner.environment === 'live' && never.length > 0) throw new Refusal('IKW-PAY-007', 'A scheduled release pays only a destination paid before: execute it with a second factor', 'challengeId');
    return [];
  }
}
