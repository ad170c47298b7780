import { Refusal } from '#packages/core/refusal.js';
import type { Owner, PayoutCommand } from './decider.js';
import { toPayoutObject } from './render.js';
import type { PayoutObject } from './events.js';
import type { Actor } from '#packages/core/owner.js';
import { isOwned } from '#packages/core/aggregate.js';
import { expectedMs, type PayoutCommits, type PayoutDeps } from './commands.js';
import type { PayoutOperatorSide } from './operator-side.js';

/** A person's release or decline of a payout the risk rules held for review (docs/risk.md). */
export class PayoutReviews {
  constructor(
    private readonly deps: PayoutDeps,
    private readonly commits: PayoutCommits,
    private readonly operatorSide: PayoutOperatorSide,
  ) {}

  /**
   * Releases a payout the risk rules held for review (docs/risk.md): it is sent now. Once released,
   * releasing again sends nothing and answers the payout as it is; a payout never held is
   * IKW-LIM-009; another merchant's is 404.
   */
  async releaseReview(owner: Owner, id: string, actor: Actor): Promise<PayoutObject> {
    const meta = this.commits.metadata(owner, id, actor);
    const { state } = await this.commits.load(id);
    if (!isOwned(state.payout, owner)) throw new Refusal('IKW-RES-001', `No such payout: '${id}'`, 'payoutId');
    if (!state.payout.review) throw new Refusal('IKW-LIM-009', undefined, 'payoutId');
    const released = await this.commits.run(id, { type: 'release_review', owner, at: this.deps.clock.now() }, meta);
    if (released.events.length === 0) return toPayoutObject(released.state);
    // Its expected_by may have passed while it waited: late from the operator's usual time after its release.
    await this.deps.scheduleOverdueCheck({ ...owner, payoutId: id }, new Date(this.deps.clock.now().getTime() + expectedMs(state.payout.destination)));
    return this.operatorSide.initiate(released.state, meta);
  }

  /**
   * Declines a payout the risk rules held for review (docs/risk.md): it fails (`declined_in_review`)
   * without reaching a rail, and its hold goes back in the same commit. Declining again answers the
   * payout as it is; a payout not held (never, or released) is IKW-LIM-009; another merchant's is 404.
   */
  async declineReview(owner: Owner, id: string, reason: string | undefined, actor: Actor): Promise<PayoutObject> {
    const meta = this.commits.metadata(owner, id, actor);
    const { state } = await this.commits.load(id);
    if (!isOwned(state.payout, owner)) throw new Refusal('IKW-RES-001', `No such payout: '${id}'`, 'payoutId');
    const command: PayoutCommand = { type: 'decline_review', owner, at: this.deps.clock.now(), ...(reason !== undefined ? { reason } : {}) };
    return toPayoutObject(await this.commits.commitWithEnd(state.payout, command, 'released', meta));
  }

  /** Whose payout this is, for the operators, who act on every merchant's (null: no such payout). */
  async ownerOf(id: string): Promise<Owner | null> {
    const p = (await this.commits.load(id)).state.payout;
    return p ? { merchantId: p.merchantId, environment: p.environment } : null;
  }
}
