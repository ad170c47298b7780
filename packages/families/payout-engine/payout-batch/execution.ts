import type { Fact } from '#packages/core/decider.js';
import { sha256Hex } from '#packages/core/hashing.js';
import { CommandService, handleCommand, handleCommandsAtomically, handleSteps, step } from '#packages/eventstore/command-handler.js';
import { ledgerCommand, runLedger } from '#packages/families/ledger/index.js';
import { holdBatch, releaseBatch } from './postings.js';
import { balanceStream } from '#packages/families/ledger/index.js';
import type { Destination } from '#packages/families/payouts/index.js';
import type { PayoutRef } from '#packages/families/payouts/index.js';
import { FINAL_PAYOUT_STATUSES } from '#packages/families/payouts/index.js';
import { executionOf, indexesWhere, type ItemNews, type PayoutBatchCommand, type PayoutBatchState } from './decider.js';
import { payoutBatchAggregate, toPayoutBatchObject } from './render.js';
import { batchHoldSource, itemPayoutId, payoutBatchStream, type PayoutBatchCreated, type PayoutBatchEvent, type PayoutBatchObject } from './events.js';
import type { Actor, Owner, Requester } from '#packages/core/owner.js';
import { isOwned } from '#packages/core/aggregate.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { PayoutBatchDeps, BatchRunRef } from './commands.js';

/**
 * Items a run takes before it hands over to the next run: a job stays short, and a resumed one
 * redoes little. Four waves of four per operator: a run takes about as long as the operators'
 * answers to the run before it (the scheduler's next round), so sending and answers go on together.
 */
const ITEMS_PER_RUN = 48;
/** Payouts sent side by side to one operator ("a few at a time"): its rate limits are not ours to find. */
const SENDS_PER_OPERATOR = 4;
const RUNNER: Actor = { actor: 'payout_engine' };
/** When the mend of an execution runs: long after its commit, as the payout reconcile job. */
const MEND_AFTER_MS = 60_000;

/** The operator (or bank rail) a destination is sent through: sends are limited per operator. */
const operatorOf = (d: Destination) => (d.type === 'mobile_money' ? `${d.country}:${d.operator}` : `bank:${d.currency}`);

/**
 * The execution of payout batches: funded together (one hold of total + fees), sent a few at a
 * time per operator by a durable runner, canceled, retried, and settled from their payouts'
 * outcomes (docs/payout-engine.md).
 */
export class PayoutBatchExecution extends CommandService<PayoutBatchCommand, PayoutBatchState, Fact<PayoutBatchEvent>> {
  constructor(private readonly deps: PayoutBatchDeps) {
    super(deps.store, payoutBatchStream, payoutBatchAggregate);
  }

  /**
   * Executes a validated batch: its total + fees held in one commit with its status (IKW-BAL-001
   * when the balance falls short) and, from a signed-in user paying destinations never paid, the
   * challenge used (newDestinationsGuard). `requestRef` (the Idempotency-Key with the request's
   * fingerprint) is recorded with the execution: the same request retried after a crash answers
   * the batch it started instead of being refused or starting another.
   */
  execute(owner: Owner, batchId: string, by: Requester, actor: Actor, requestRef?: string): Promise<PayoutBatchObject> {
    return this.startExecution(owner, batchId, 'execute', by, actor, requestRef);
  }

  /** Sends the failed items of a finished batch again, as new payouts, with a new hold (and the same guards as an execution). */
  retry(owner: Owner, batchId: string, by: Requester, actor: Actor, requestRef?: string): Promise<PayoutBatchObject> {
    return this.startExecution(owner, batchId, 'retry', by, actor, requestRef);
  }

  private async startExecution(owner: Owner, batchId: string, type: 'execute' | 'retry', by: Requester, actor: Actor, requestRef?: string): Promise<PayoutBatchObject> {
    const meta = auditMetadata(this.deps.clock, owner, batchId, actor);
    const { state } = await this.load(batchId);
    const request = requestRef === undefined ? undefined : sha256Hex(requestRef);
    // This request started an execution before (its answer lost to a crash): that one is the answer; its runs go on (the mend set before it).
    if (request !== undefined && isOwned(state.batch, owner) && state.requests[request] !== undefined) return toPayoutBatchObject(state);
    // Refusals first (no such batch, wrong status), before any hold is thought of.
    payoutBatchAggregate.decide({ type, owner, at: this.deps.clock.now() }, state);
    await this.deps.payouts.assertLiveOpen(owner);
    const batch = state.batch!;
    const execution = executionOf(state, type);
    // Every item's destination waits no safety delay (inline, or a recipient saved a moment ago).
    const guard = await this.deps.payouts.newDestinationsGuard(
      owner,
      execution.indexes.map((i) => batch.items[i]!.destination),
      by,
      actor,
      'batchId',
      "This merchant's payout settings refuse inline destinations to API keys, and a batch's destinations (inline or saved recipients) have no safety delay: a signed-in user executes it",
    );
    // Within the account's limits (docs/limits.md): the execution is where a batch's payouts are decided, as one payout's hold is.
    const largest = Math.max(0, ...execution.indexes.map((i) => batch.items[i]!.amount));
    const limited = await this.deps.batchPayouts.withinLimits(owner, { source: execution.holdSource, amount: execution.amount, largest }, holdBatch({ source: execution.holdSource, amount: execution.amount, fee: execution.fee }));
    const hold = ledgerCommand(this.deps.clock, { ...owner, currency: batch.currency }, limited);
    const command: PayoutBatchCommand = { type, owner, at: this.deps.clock.now(), ...(request !== undefined ? { request } : {}) };
    // The mend first, a minute out: it carries on a run whose start was lost to a crash, and gives
    // back a hold whose execution was never recorded (saga mode).
    const now = this.deps.clock.now();
    await this.deps.scheduleRun({ ...owner, batchId, attempt: execution.attempt, step: 'mend' }, new Date(now.getTime() + MEND_AFTER_MS));
    const ledgerStream = balanceStream(owner.merchantId, owner.environment, batch.currency);
    // Two batches executed at once contend on the balance stream: each is decided again on the
    // other's hold, and ends executing or refused with IKW-BAL-001, never overdrawn.
    const atomic = handleCommandsAtomically(
      this.deps.store,
      [...guard, step({ streamId: ledgerStream, decider: this.deps.ledger.decider, command: hold, metadata: meta }), step({ streamId: payoutBatchStream(batchId), decider: payoutBatchAggregate, command, metadata: meta })],
      { onConflict: 'contended' },
    );
    if (atomic) await atomic;
    else {
      // The challenge first, so that no execution is recorded without it (as a single payout's).
      if (guard.length > 0) await handleSteps(this.deps.store, guard);
      await handleCommand(this.deps.store, ledgerStream, this.deps.ledger.decider, hold, meta, { onConflict: 'contended' });
      await this.run(batchId, command, meta, 'internal');
    }
    await this.deps.scheduleRun({ ...owner, batchId, attempt: execution.attempt, step: 'start' }, now);
    return toPayoutBatchObject((await this.load(batchId)).state);
  }

  /** Cancels a batch before or during its execution: nothing more is sent; payouts not yet dispatched are canceled. */
  async cancel(owner: Owner, batchId: string, actor: Actor): Promise<PayoutBatchObject> {
    const result = await this.run(batchId, { type: 'cancel', owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, batchId, actor), 'internal');
    if (result.state.attempt > 0) await this.deps.scheduleRun({ ...owner, batchId, attempt: result.state.attempt, step: 'cancel' }, this.deps.clock.now());
    return toPayoutBatchObject(result.state);
  }

  /**
   * One run of the runner (a durable job): the next items of the current attempt not yet sent are
   * queued as payouts (their holds carved from the batch's), then dispatched, a few at a time per
   * operator; once the batch is canceled, they are stopped instead. Then the next run is scheduled,
   * or, with nothing left, what the hold has left goes back to available. Every step is
   * idempotent: a run resumed after a crash lands on the same payouts and pays none twice.
   */
  async runExecution(ref: BatchRunRef): Promise<void> {
    const started = this.deps.clock.now();
    const { state } = await this.load(ref.batchId);
    const batch = state.batch;
    if (!batch) return;
    const owner: Owner = { merchantId: batch.merchantId, environment: batch.environment };
    const releaseHold = (attempt: number) => runLedger(this.deps, owner.merchantId, owner.environment, batch.currency, releaseBatch(batchHoldSource(batch.id, attempt)), auditMetadata(this.deps.clock, owner, batch.id, RUNNER));
    // The mend of an execution never recorded (refused, or a crash between hold and batch in saga mode): give its hold back, if any.
    if (state.attempt < ref.attempt) return void (await releaseHold(ref.attempt));
    if (state.status !== 'executing' && state.status !== 'canceled') return;
    const attempt = state.attempt;
    const waiting = indexesWhere(state, (i) => i.outcome === 'queued' && i.attempt === attempt && !i.sent);
    const run = waiting.slice(0, ITEMS_PER_RUN);
    if (state.status === 'canceled') await this.stop(owner, batch, attempt, run);
    else await this.send(owner, batch, attempt, run);
    if (run.length > 0) await this.run(batch.id, { type: 'mark_sent', owner, at: this.deps.clock.now(), attempt, indexes: run }, auditMetadata(this.deps.clock, owner, batch.id, RUNNER), 'internal');
    if (waiting.length > run.length) {
      // Due as of this run's start, so claimed before the answers to its sends (oldest first).
      await this.deps.scheduleRun({ ...owner, batchId: batch.id, attempt, step: `after-${run[run.length - 1]}` }, started);
      return;
    }
    await releaseHold(attempt);
  }

  private async send(owner: Owner, batch: PayoutBatchCreated, attempt: number, indexes: number[]): Promise<void> {
    const refOf = (index: number): PayoutRef => ({ ...owner, payoutId: itemPayoutId(batch.id, index, attempt) });
    // Side by side: their carvings queue on the balance stream and share its commits (command-handler.ts).
    // Nothing is dispatched before every payout of the run is queued.
    await Promise.all(
      indexes.map((index) => {
        const item = batch.items[index]!;
        return this.deps.batchPayouts.queueBatchPayout(owner, { batchId: batch.id, index, attempt, payoutId: refOf(index).payoutId, amount: item.amount, fee: item.fee, destination: item.destination, metadata: item.metadata }, RUNNER);
      }),
    );
    const byOperator = new Map<string, number[]>();
    for (const index of indexes) {
      const key = operatorOf(batch.items[index]!.destination);
      const group = byOperator.get(key);
      if (group) group.push(index);
      else byOperator.set(key, [index]);
    }
    // In waves of a few items per operator (at most SENDS_PER_OPERATOR in flight each): one commit
    // records a wave's dispatches with the answers to the wave before. A cancel that arrives while
    // the run goes on stops what the next waves would have sent.
    const groups = [...byOperator.values()];
    const waves: number[][] = [];
    for (let from = 0; groups.some((g) => g.length > from); from += SENDS_PER_OPERATOR) waves.push(groups.flatMap((g) => g.slice(from, from + SENDS_PER_OPERATOR)));
    const sent = await this.deps.batchPayouts.dispatchBatchPayouts(
      waves.map((wave) => wave.map(refOf)),
      RUNNER,
      async () => (await this.load(batch.id)).state.status !== 'canceled',
    );
    for (const index of waves.slice(sent).flat()) await this.deps.batchPayouts.cancelBatchPayout(refOf(index), RUNNER);
  }

  /** Items of a canceled batch: a queued payout is canceled (unless already dispatched); an item without one is settled as canceled. */
  private async stop(owner: Owner, batch: PayoutBatchCreated, attempt: number, indexes: number[]): Promise<void> {
    const unsent: ItemNews[] = [];
    for (const index of indexes) {
      const payoutId = itemPayoutId(batch.id, index, attempt);
      const payout = await this.deps.batchPayouts.cancelBatchPayout({ ...owner, payoutId }, RUNNER);
      if (payout) continue; // its final status reaches the batch like any other payout's
      unsent.push({ index, attempt, payoutId: null, outcome: 'canceled', failureCode: null });
    }
    if (unsent.length > 0) await this.run(batch.id, { type: 'settle_items', owner, at: this.deps.clock.now(), items: unsent }, auditMetadata(this.deps.clock, owner, batch.id, RUNNER), 'internal');
  }

  /**
   * Payouts of batches became final: each batch records its items' outcomes in one command (one
   * commit, whatever the number of items), and finishes with its last item. Payouts not final, or
   * of no batch, are skipped; news already recorded decides nothing, so a job run again after a
   * crash changes nothing. Answers per payout: null, or the error of its batch's command.
   */
  async settlePayouts(refs: readonly PayoutRef[]): Promise<(Error | null)[]> {
    const news = new Map<string, { owner: Owner; items: ItemNews[]; refs: number[] }>();
    const states = await Promise.all(refs.map((ref) => this.deps.batchPayouts.load(ref.payoutId)));
    states.forEach(({ state }, i) => {
      const p = state.payout;
      if (!p?.batch || !FINAL_PAYOUT_STATUSES.includes(state.status)) return;
      const owner: Owner = { merchantId: p.merchantId, environment: p.environment };
      const entry = news.get(p.batch.id) ?? { owner, items: [], refs: [] };
      entry.items.push({ index: p.batch.index, attempt: p.batch.attempt, payoutId: p.id, outcome: state.status as ItemNews['outcome'], failureCode: state.failure?.code ?? null });
      entry.refs.push(i);
      news.set(p.batch.id, entry);
    });
    const outcomes: (Error | null)[] = refs.map(() => null);
    await Promise.all(
      [...news].map(async ([batchId, { owner, items, refs: which }]) => {
        try {
          await this.run(batchId, { type: 'settle_items', owner, at: this.deps.clock.now(), items }, auditMetadata(this.deps.clock, owner, batchId, RUNNER), 'internal');
        } catch (err) {
          for (const i of which) outcomes[i] = err instanceof Error ? err : new Error(String(err));
        }
      }),
    );
    return outcomes;
  }
}
