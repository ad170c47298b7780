import { isRefused } from '#packages/core/refusal.js';
import type { PayoutInitiation } from '#packages/connectors/port.js';
import { handleCommand, handleSteps, step } from '#packages/eventstore/command-handler.js';
import type { Owner, PayoutCommand, PayoutState } from './decider.js';
import { payoutAggregate, toPayoutObject } from './render.js';
import { payoutStream, type PayoutObject } from './events.js';
import type { Actor } from '#packages/core/owner.js';
import type { LedgerAction } from '#packages/ledger/decider.js';
import type { PayoutCommits, BatchPayoutInput, PayoutDeps, PayoutRef } from './commands.js';
import type { PayoutOperatorSide } from './operator-side.js';

/**
 * The payouts of a payout batch's items (docs/payout-engine.md): queued within the batch's hold,
 * sent in waves, canceled while never dispatched.
 */
export class BatchPayouts {
  constructor(
    private readonly deps: PayoutDeps,
    private readonly commits: PayoutCommits,
    private readonly operatorSide: PayoutOperatorSide,
  ) {}

  /**
   * Queues the payout of a batch item: its hold is carved out of the batch's hold and the payout
   * is created pending, in one commit where the store allows it; it is sent when the batch
   * dispatches it. Idempotent: the id comes from the batch, the item and the attempt, so a run
   * resumed after a crash lands on the same payout. In saga mode the payout comes first and its
   * allocation after: nothing is sent before both exist, since dispatch follows this call.
   */
  async queueBatchPayout(owner: Owner, input: BatchPayoutInput, actor: Actor): Promise<void> {
    const meta = this.commits.metadata(owner, input.payoutId, actor);
    let queued = (await this.commits.load(input.payoutId)).state.payout;
    if (!queued) {
      const payout = await this.commits.prepare(owner, input.payoutId, {
        amount: input.amount,
        fee: input.fee,
        destination: input.destination,
        payoutMethodId: null,
        metadata: input.metadata,
        source: 'payout_engine',
        batch: { id: input.batchId, index: input.index, attempt: input.attempt },
      });
      if (await this.commits.open(payout, meta, 'internal')) return;
      await this.commits.scheduleMend(payout.payout);
      await this.commits.run(input.payoutId, payout, meta, 'internal');
      queued = payout.payout;
    }
    const allocation = await this.commits.holdStep(owner, queued, meta);
    await handleCommand(this.deps.store, allocation.streamId, allocation.decider, allocation.command, meta, { onConflict: 'internal' });
  }

  /**
   * Sends queued batch payouts in waves (the caller bounds how many of a wave go to one operator).
   * One commit records a wave's dispatches together with the answers to the wave before it, then
   * the wave's operators are asked side by side; a last commit records the last wave's answers:
   * n waves cost n + 1 commits instead of 2n. A payout is recorded dispatched before its operator
   * is asked, and an answer is lost only with its commit, in which case the resumed run asks again
   * (operators dedupe by payout id). `proceed` is asked before each wave: false stops the sending
   * there (a cancel); the answers already had are recorded all the same. A payout canceled
   * meanwhile, or already answered, is left as it is (its ledger side posted if final). Returns how
   * many waves were dispatched.
   */
  async dispatchBatchPayouts(waves: readonly (readonly PayoutRef[])[], actor: Actor, proceed: () => Promise<boolean> = async () => true): Promise<number> {
    const onPayout = (ref: PayoutRef, command: PayoutCommand) => step({ streamId: payoutStream(ref.payoutId), decider: payoutAggregate, command, metadata: this.commits.metadata(ref, ref.payoutId, actor) });
    let answered: { ref: PayoutRef; result: PayoutInitiation }[] = [];
    let sent = 0;
    for (;;) {
      const wave = sent < waves.length && (await proceed()) ? waves[sent]! : null;
      if (!wave && answered.length === 0) return sent;
      const at = this.deps.clock.now();
      const results = await handleSteps(this.deps.store, [...answered.map(({ ref, result }) => onPayout(ref, { type: 'submit', owner: ref, at, result })), ...(wave ?? []).map((ref) => onPayout(ref, { type: 'dispatch', owner: ref, at }))], {
        onConflict: 'internal',
      });
      const refs = [...answered.map((a) => a.ref), ...(wave ?? [])];
      const states = results.map((r) => r.state as PayoutState);
      // Final ones (refused by the operator, or final before this call): their ledger side, once.
      await Promise.all(states.map((state, i) => this.commits.settleLedger(state, this.commits.metadata(refs[i]!, refs[i]!.payoutId, actor))));
      if (!wave) return sent;
      sent++;
      const dispatched = states.slice(answered.length);
      const answers = await Promise.all(dispatched.map((state) => (state.status === 'pending' ? this.operatorSide.askOperator(state) : null)));
      answered = wave.flatMap((ref, i) => {
        const result = answers[i];
        return result && result !== 'unknown' ? [{ ref, result }] : [];
      });
    }
  }

  /** A batch item's payout as its stream holds it: the batch records the outcomes of those final. */
  load(payoutId: string): Promise<{ state: PayoutState; version: number | 'no_stream' }> {
    return this.commits.load(payoutId);
  }

  /** A batch execution's hold (`largest` its largest item), decided within the account's limits as its commit finds the balance. */
  withinLimits(owner: Owner, payouts: { source: string; amount: number; largest: number }, hold: LedgerAction): Promise<LedgerAction> {
    return this.commits.withinLimits(owner, payouts, hold);
  }

  /** Cancels a queued batch payout that was never dispatched, giving its hold back; one already dispatched goes on. */
  async cancelBatchPayout(ref: PayoutRef, actor: Actor): Promise<PayoutObject | null> {
    const meta = this.commits.metadata(ref, ref.payoutId, actor);
    const { state } = await this.commits.load(ref.payoutId);
    if (!state.payout) return null;
    if (state.status !== 'pending' || state.dispatched) return toPayoutObject(state);
    try {
      return toPayoutObject(await this.commits.commitWithEnd(state.payout, { type: 'cancel', owner: ref, at: this.deps.clock.now() }, 'released', meta));
    } catch (err) {
      // Dispatched between the read and the cancel: it goes on.
      if (isRefused(err, 'IKW-RES-002')) return toPayoutObject((await this.commits.load(ref.payoutId)).state);
      throw err;
    }
  }
}
