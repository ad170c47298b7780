import { isRefused } from '#packages/core/refusal.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import { connectorActor, nextStatusCheck, readStatus, sendAgain, type PayoutCallback } from '#packages/connectors/callbacks.js';
import { OutcomeUnknown, type PayoutInitiation, type PayoutReport, type PayoutRequest } from '#packages/connectors/port.js';
import { handleCommandsAtomically, step } from '#packages/eventstore/command-handler.js';
import { FINAL_PAYOUT_STATUSES, heldForReview, type Owner, type PayoutCommand, type PayoutState } from './decider.js';
import { payoutAggregate, toPayoutObject } from './render.js';
import { payoutStream, type PayoutCreated, type PayoutObject } from './events.js';
import { isOwned } from '#packages/core/aggregate.js';
import type { PayoutCommits, PayoutDeps, PayoutRef, PayoutStatusCheck } from './commands.js';

/** The port's request of a payout: its id is the idempotency key with the operator. */
function payoutRequestOf(p: PayoutCreated): PayoutRequest {
  return { payoutId: p.id, merchantId: p.merchantId, environment: p.environment, amount: p.amount, currency: p.currency, destination: p.destination, ...(p.connector !== undefined ? { connector: p.connector } : {}) };
}

/**
 * The operator's side of a payout: asking it to send one, its callbacks, the status checks of a
 * payout whose answer is missing, and the overdue mark at expected_by. Every payout reaches the
 * operator through here, whichever use case created it.
 */
export class PayoutOperatorSide {
  constructor(
    private readonly deps: PayoutDeps,
    private readonly commits: PayoutCommits,
  ) {}

  /**
   * Hands a pending payout to the operator and records its answer. After a crash the operator may
   * be asked again: it dedupes by payout id. A payout past pending is answered as it is.
   */
  async initiate(state: PayoutState, meta: EventMetadata): Promise<PayoutObject> {
    const p = state.payout!;
    // Held for review: sent only once a person releases it (releaseReview).
    if (heldForReview(state)) return toPayoutObject(state);
    if (state.status !== 'pending') {
      await this.commits.settleLedger(state, meta);
      return toPayoutObject(state);
    }
    const owner: Owner = { merchantId: p.merchantId, environment: p.environment };
    const initiation = await this.askOperator(state);
    // Perhaps with the operator: no longer cancelable, as a batch's payout once handed over.
    if (initiation === 'unknown') return toPayoutObject((await this.commits.run(p.id, { type: 'dispatch', owner, at: this.deps.clock.now() }, meta)).state);
    // The payout exists and its funds are held: answer it as it is (pending), so a retry with
    // the same Idempotency-Key finds it instead of paying out twice.
    if (!initiation) return toPayoutObject((await this.commits.load(p.id)).state);
    const submitted = await this.commits.commitWithEnd(p, { type: 'submit', owner, at: this.deps.clock.now(), result: initiation }, initiation.status === 'rejected' ? 'released' : null, meta);
    return toPayoutObject(submitted);
  }

  /**
   * The operator's answer to a pending payout; null when the call failed (left pending: the
   * operator's status check decides later), `unknown` when it may have reached the operator.
   * The payout id is committed already; the first status check is set before the call, so that
   * a process dying with the request sent leaves it to be found.
   */
  async askOperator(state: PayoutState): Promise<PayoutInitiation | 'unknown' | null> {
    const p = state.payout!;
    const rails = this.deps.rails(p.environment);
    const checks = rails.statusChecks('payout', p.destination, p.connector);
    if (checks) {
      const check: PayoutStatusCheck = { merchantId: p.merchantId, environment: p.environment, connector: checks.connector, attempt: 0, direction: 'payout', payoutId: p.id };
      await this.deps.scheduleStatusCheck(check, new Date(this.deps.clock.now().getTime() + checks.schedule[0]!));
    }
    try {
      return await rails.payout(payoutRequestOf(p));
    } catch (err) {
      this.deps.log.error({ err, payout_id: p.id }, 'payout initiation failed; left pending');
      return err instanceof OutcomeUnknown && checks ? 'unknown' : null;
    }
  }

  /** Operator news about a payout (sandbox timers, live callbacks). Idempotent. */
  async applyCallback(callback: PayoutCallback): Promise<PayoutObject | null> {
    return this.applyOn((await this.commits.load(callback.payoutId)).state, callback);
  }

  /**
   * Operator news about many payouts (a batch of `payout.callback` jobs: never two of one payout),
   * applied side by side, so that the final answers of one balance are decided together and share
   * its commit with their ledger sides (finalWithLedger). Each starts from the state this process
   * remembers, unread: every command is decided again on the state its append proves current, so
   * a stale one only costs a read or the step-by-step way. The answer per callback: null, or its
   * error (the others are not held back by it).
   */
  applyCallbacks(callbacks: readonly PayoutCallback[]): Promise<(Error | null)[]> {
    return Promise.all(
      callbacks.map(async (callback) => {
        try {
          await this.applyOn((await this.commits.recall(callback.payoutId)).state, callback);
          return null;
        } catch (err) {
          return err instanceof Error ? err : new Error(String(err));
        }
      }),
    );
  }

  private async applyOn(state: PayoutState, callback: PayoutCallback): Promise<PayoutObject | null> {
    const owner: Owner = { merchantId: callback.merchantId, environment: callback.environment };
    const meta = this.commits.metadata(owner, callback.payoutId, { actor: connectorActor(callback) });
    if (!state.payout) return null;
    const at = this.deps.clock.now();
    const r = callback.report;
    const command: PayoutCommand =
      r.type === 'delayed'
        ? { type: 'report_delay', owner, at, reason: r.reason }
        : r.type === 'paid'
          ? { type: 'complete', owner, at, ...(r.providerReference ? { providerReference: r.providerReference } : {}) }
          : { type: 'fail', owner, at, failureCode: r.failureCode, failureMessage: r.failureMessage };
    if (command.type === 'complete' || command.type === 'fail') {
      const final = await this.finalWithLedger(state, command, meta);
      if (final) {
        await this.commits.dropOverdueCheckIfEnded(final);
        return toPayoutObject(final);
      }
    }
    const result = await this.commits.run(callback.payoutId, command, meta);
    await this.commits.settleLedger(result.state, meta);
    await this.commits.dropOverdueCheckIfEnded(result.state);
    return toPayoutObject(result.state);
  }

  /**
   * A payout made final (paid or failed) in one commit with its ledger side, where the store
   * allows it: the ledger's stream first, so the payouts of one balance that end meanwhile share
   * one commit (command-handler.ts) instead of two commits each; no read shows a failed payout
   * whose money is not back. The payout's command is strict: should the payout be final already,
   * nothing is committed (not the ledger side alone) and null sends the caller the step-by-step way.
   */
  private async finalWithLedger(state: PayoutState, command: PayoutCommand & { type: 'complete' | 'fail' }, meta: EventMetadata): Promise<PayoutState | null> {
    const p = state.payout!;
    if (FINAL_PAYOUT_STATUSES.includes(state.status)) return null;
    const { ledger, others } = this.commits.endSteps(p, command.type === 'complete' ? 'paid' : 'released', meta);
    const atomic = handleCommandsAtomically(this.deps.store, [ledger, step({ streamId: payoutStream(p.id), decider: payoutAggregate, command: { ...command, strict: true }, metadata: meta }), ...others], { onConflict: 'internal' });
    if (!atomic) return null;
    try {
      return (await atomic)[1]!.state as PayoutState;
    } catch (err) {
      if (isRefused(err, 'IKW-RES-002')) return null;
      throw err;
    }
  }

  /**
   * A status check of a payout with no final answer (docs/connectors.md, "Status checks"): the
   * operator's record decides. Not found: it never arrived, and is sent again under the same id.
   * Found: followed (taken, delayed, paid, failed), once its amount and currency match the
   * payout. Nothing final: asked again on the connector's schedule; when that runs out the payout
   * stays open, listed for review, never failed by guess.
   */
  async checkStatus(check: PayoutStatusCheck): Promise<void> {
    const owner: Owner = { merchantId: check.merchantId, environment: check.environment };
    let { state } = await this.commits.load(check.payoutId);
    const p = state.payout;
    if (!isOwned(p, owner) || FINAL_PAYOUT_STATUSES.includes(state.status)) return;
    const meta = this.commits.metadata(owner, p.id, { actor: connectorActor(check) });
    const rails = this.deps.rails(p.environment);
    const log = this.deps.log.child({ payout_id: p.id, check: check.attempt });
    const checks = rails.statusChecks('payout', p.destination, p.connector);
    const answer = await rails.payoutStatus(payoutRequestOf(p));
    const reading = readStatus(answer, p, { sendsAgain: checks?.sendsAgain ?? false, ...check });
    let report: PayoutReport | null = null;
    if (reading.kind === 'absent') log.warn('the operator has no record of the payout and it is not sent again; the next check asks again');
    else if (reading.kind === 'resend') {
      log.warn('the operator never received the payout; sent again under the same id');
      const again = await sendAgain(
        () => rails.payout(payoutRequestOf(p)),
        (err) => log.warn({ err }, 'the payout sent again has no answer; the next check decides'),
      );
      if (again?.status === 'rejected') report = { type: 'failed', failureCode: again.failureCode, failureMessage: again.failureMessage };
      else if (again) state = await this.commits.commitWithEnd(p, { type: 'submit', owner, at: this.deps.clock.now(), result: again }, null, meta);
    } else {
      if (reading.kind === 'review') {
        log.error({ reported: answer.found && answer.reported }, `the operator's record does not match the payout (${reading.mismatch}); nothing applied, left for review`);
        return;
      }
      // Taken: a payout whose answer never came back is in transit from now on.
      if (state.status === 'pending') state = await this.commits.commitWithEnd(p, { type: 'submit', owner, at: this.deps.clock.now(), result: { status: 'accepted' } }, null, meta);
      report = reading.final ?? (answer.found && answer.delayed ? { type: 'delayed', reason: answer.delayed } : null);
    }
    const after = report ? await this.applyOn(state, { payoutId: p.id, ...owner, report, connector: check.connector }) : toPayoutObject(state);
    if (after && FINAL_PAYOUT_STATUSES.includes(after.status)) return;
    const next = nextStatusCheck(checks?.schedule ?? [], check, this.deps.clock.now(), reading.kind === 'resend');
    if (next) await this.deps.scheduleStatusCheck(next.check, next.at);
    else if (!check.prompted) {
      log.error('no final answer after every status check; the payout stays open, left for review');
      // Late past every check: the overlay says the operator timed out (its status is untouched).
      await this.commits.run(p.id, { type: 'report_delay', owner, at: this.deps.clock.now(), reason: 'operator_timeout' }, meta);
    }
  }

  /** At expected_by: a payout still not final gets the delay overlay (reason `unknown` unless the operator said more). */
  async checkOverdue(owner: PayoutRef): Promise<void> {
    const { state } = await this.commits.load(owner.payoutId);
    if (!state.payout) return;
    await this.commits.run(owner.payoutId, { type: 'check_overdue', owner, at: this.deps.clock.now() }, this.commits.metadata(owner, owner.payoutId, { actor: 'scheduler' }));
  }
}
