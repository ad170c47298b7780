import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import { isRefused } from '#packages/core/refusal.js';
import type { Environment, Owner } from '#packages/core/owner.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Ledger } from '#packages/ledger/decider.js';
import { JobWaits, type Enqueue } from '#packages/scheduler/scheduler.js';
import { connectorActor, nextStatusCheck, readStatus, sendAgain, type RefundCallback, type StatusCheck } from '#packages/connectors/callbacks.js';
import { sendsAgainSafely, type CollectOutcome, type Rails, type Refunder, type RefundInitiation, type RefundRequest } from '#packages/connectors/port.js';
import { handleSteps, loadState, step, type AnyStep } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { isOwned } from '#packages/core/aggregate.js';
import { ledgerStep } from '#packages/families/ledger/index.js';
import { endRailRefund } from './postings.js';
import { railRefundDecider, type RailRefundState } from './decider.js';
import { railRefundStream, type RailRefundOrigin, type RailRefundRecord } from './events.js';
import type { RefundLeases } from './lease.js';

/** A refund's status check, as its job carries it. */
export type RefundStatusCheck = StatusCheck & { direction: 'refund' };

/**
 * The family that follows a rail refund's answer (its `origin`): the steps that record it on the
 * family's own object, committed with the refund's end and its money.
 */
export type RailRefundFollower = (refund: RailRefundRecord, outcome: CollectOutcome, metadata: EventMetadata) => AnyStep[];

export interface RailRefundDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  rails(environment: Environment): Rails;
  /** Durable timer of the status checks of a refund whose connector has a schedule (docs/connectors.md). */
  scheduleStatusCheck: Enqueue<RefundStatusCheck>;
  /** A refund's send and its status checks take turns (lease.ts). */
  leases: RefundLeases;
}

/** How long a send waits for a check of its refund to end (a check is one read of the rail, its timeout at most). */
const SEND_WAITS_MS = 30_000;

/** Thrown by a status check that found its refund's send still on its way: the job runs again after its back-off. */
export class RefundBeingSent extends JobWaits {
  constructor(refundId: string) {
    super(`refund ${refundId} is being sent or checked by another process now; checked again after it`);
    this.name = 'RefundBeingSent';
  }
}

/**
 * Refunds through a rail that keeps Sika's money, whatever family asks and whatever connector
 * carries them (docs/connectors.md, "Refunds through a rail"). The family commits the refund's
 * request (`request`) with its own fact and the money held out of its account; then `send`
 * asks the connector. Its answer, a callback or a status check ends the refund once: succeeded,
 * the money leaves through the rail's clearing account; failed, it goes back where it came from.
 * An answer lost on the way keeps it pending until a status check settles it, never a second
 * refund under another id; sent again under its own id only when the rail keeps one record per
 * refund id (Connector.oneRecordPerId), never at all otherwise (Paystack). A refund's send and its
 * checks never talk to the rail at the same time (its lease).
 */
export class RailRefunds {
  private readonly followers = new Map<RailRefundOrigin['family'], RailRefundFollower>();

  constructor(private readonly deps: RailRefundDeps) {}

  /** The family of `family` records a rail refund's answer on its object with these steps. */
  follow(family: RailRefundOrigin['family'], follower: RailRefundFollower): void {
    this.followers.set(family, follower);
  }

  /** Whether this environment has the connector that carried a collection, to refund it (IKW-PRV-006 for the caller when not). */
  canRefund(environment: Environment, connector: string): boolean {
    return this.deps.rails(environment).refunder(connector) !== null;
  }

  /**
   * The request of a refund, for the family to commit with its own fact and the hold of its money,
   * before anything is sent. Its first status check is set first: should the process die after the
   * commit, before or during the call, the check finds the refund and settles it (NOT_FOUND: sent
   * then, under the same id); a check of a refund never committed finds nothing and does nothing.
   */
  async request(refund: RailRefundRecord, metadata: EventMetadata): Promise<AnyStep> {
    const schedule = this.deps.rails(refund.environment).refunder(refund.connector)?.statusChecks ?? [];
    if (schedule.length > 0) {
      const check: RefundStatusCheck = { merchantId: refund.merchantId, environment: refund.environment, connector: refund.connector, attempt: 0, direction: 'refund', refundId: refund.id };
      await this.deps.scheduleStatusCheck(check, new Date(this.deps.clock.now().getTime() + schedule[0]!));
    }
    return step({ streamId: railRefundStream(refund.id), decider: railRefundDecider, command: { type: 'request', refund }, metadata });
  }

  /**
   * Sends a committed refund to its rail. Accepted: pending until the rail's news. Rejected:
   * failed at once, its money back. No answer: pending, the status check decides.
   */
  async send(refund: RailRefundRecord): Promise<void> {
    const refunder = this.deps.rails(refund.environment).refunder(refund.connector);
    if (!refunder) {
      this.deps.log.error({ refund_id: refund.id }, `the connector ${refund.connector} is not configured any more; the refund stays pending, left for review`);
      return;
    }
    const sent = await this.deps.leases.hold(refund.id, SEND_WAITS_MS, () => this.ask(refund, refunder, () => refunder.refund(railRefundRequest(refund))));
    if (!sent.held) {
      // Not sent, and a check may not send it (a rail without one record per id): review decides.
      this.deps.log.error({ refund_id: refund.id }, 'the refund could not be sent: a status check of it held its lease too long; left pending for the checks');
      return;
    }
    const answer = sent.value;
    if (answer?.status === 'rejected') await this.end(refund.id, { status: 'failed', failureCode: answer.failureCode, failureMessage: answer.failureMessage }, connectorActor(refund));
  }

  /**
   * The connector's answer; null when none came (lost, or provably not sent: the status check
   * decides either way). A refusal before sending (an amount the operator cannot take) is the
   * connector's rejection: nothing left Sika, the refund fails with its money back. So is a refund
   * provably not taken (IKW-PRV-002) by a rail whose checks never send it again: nothing would.
   */
  private ask(refund: RailRefundRecord, refunder: Refunder, call: () => Promise<RefundInitiation>): Promise<RefundInitiation | null> {
    const refusedBeforeSending = (err: unknown): RefundInitiation => {
      if (isRefused(err) && (err.code !== 'IKW-PRV-002' || !sendsAgainSafely(refunder, 'refund'))) return { status: 'rejected', failureCode: 'refund_not_possible', failureMessage: err.message };
      throw err;
    };
    return sendAgain(
      () => call().catch(refusedBeforeSending),
      (err) => this.deps.log.warn({ err, refund_id: refund.id }, 'refund sent to the rail without an answer; left pending, the status check decides'),
    );
  }

  /** A verified callback's news, matched on the stored refund (its owner; amount and currency were matched by the receiver). */
  async applyCallback(callback: RefundCallback): Promise<void> {
    const { state } = await this.load(callback.refundId);
    if (!isOwned(state.refund, callback)) return;
    await this.end(callback.refundId, callback.outcome, connectorActor(callback));
  }

  /**
   * A status check of a refund with no final answer: the rail's record decides, read while no send
   * of the refund is on its way (its lease; a check that meets one runs again after its back-off).
   * Not found: sent again under the same id where the rail keeps one record per refund id, else it
   * waits for the rail's record (a slow request may not be listed yet). Found and matching:
   * followed. Nothing final: asked again on the connector's schedule, started again after a
   * resend; when that runs out the refund stays pending, listed for review (`bin/sika rails review`),
   * never failed by guess.
   */
  async checkStatus(check: RefundStatusCheck): Promise<void> {
    const checked = await this.deps.leases.hold(check.refundId, 0, () => this.checkHolding(check));
    if (!checked.held) throw new RefundBeingSent(check.refundId);
  }

  private async checkHolding(check: RefundStatusCheck): Promise<void> {
    const { state } = await this.load(check.refundId);
    const refund = state.refund;
    if (!isOwned(refund, check) || state.status !== 'pending') return;
    const log = this.deps.log.child({ refund_id: refund.id, check: check.attempt });
    const refunder = this.deps.rails(refund.environment).refunder(refund.connector);
    if (!refunder) {
      log.error(`the connector ${refund.connector} is not configured any more; the refund stays pending, left for review`);
      return;
    }
    const answer = await refunder.refundStatus(railRefundRequest(refund));
    const reading = readStatus(answer, refund, { sendsAgain: sendsAgainSafely(refunder, 'refund'), ...check });
    let outcome: CollectOutcome | null = null;
    if (reading.kind === 'absent') log.warn('the rail lists no such refund; it may have reached the rail, so it is never sent again: the next check asks again');
    else if (reading.kind === 'resend') {
      log.warn('the rail never received the refund; sent again under the same id');
      const again = await this.ask(refund, refunder, () => refunder.refund(railRefundRequest(refund)));
      if (again?.status === 'rejected') outcome = { status: 'failed', failureCode: again.failureCode, failureMessage: again.failureMessage };
    } else if (reading.kind === 'review') {
      log.error({ reported: answer.found && answer.reported }, `the rail's record does not match the refund (${reading.mismatch}); nothing applied, left for review`);
      return;
    } else outcome = reading.final;
    if (outcome) {
      await this.end(refund.id, outcome, connectorActor(check));
      return;
    }
    const next = nextStatusCheck(refunder.statusChecks ?? [], check, this.deps.clock.now(), reading.kind === 'resend');
    if (next) await this.deps.scheduleStatusCheck(next.check, next.at);
    else if (!check.prompted) log.error('no final answer after every status check; the refund stays pending, left for review');
  }

  /**
   * Ends a pending refund once, in one commit: the ledger's side first (the balance stream is the
   * contended one), sent out through the rail's clearing account or returned where it came from;
   * the refund's end; the family's record of it. Told again, it finds the refund ended: nothing.
   */
  private async end(refundId: string, outcome: CollectOutcome, actor: string): Promise<void> {
    const { state } = await this.load(refundId);
    const refund = state.refund;
    if (!refund || state.status !== 'pending') return;
    const meta = auditMetadata(this.deps.clock, refund, refund.id, { actor, causationId: refund.id });
    const follower = this.followers.get(refund.origin.family);
    if (!follower) throw new Error(`No family follows rail refunds of ${refund.origin.family}`);
    const balance = { merchantId: refund.merchantId, environment: refund.environment, currency: refund.currency };
    await handleSteps(
      this.deps.store,
      [
        ledgerStep(this.deps, balance, endRailRefund({ source: refund.id, outcome: outcome.status === 'succeeded' ? 'sent' : 'returned' }), meta),
        step({ streamId: railRefundStream(refund.id), decider: railRefundDecider, command: { type: 'end', refundId: refund.id, outcome, at: this.deps.clock.now() }, metadata: meta }),
        ...follower(refund, outcome, meta),
      ],
      { onConflict: 'contended' },
    );
    if (outcome.status === 'failed') this.deps.log.warn({ refund_id: refund.id, origin: refund.origin, failure_code: outcome.failureCode }, 'the rail failed the refund; its money is back on the account it left');
  }

  private load(refundId: string): Promise<{ state: RailRefundState }> {
    return loadState(this.deps.store, railRefundStream(refundId), railRefundDecider);
  }
}

/**
 * The stored refund a rail's news is about, when it is this owner's (a callback's merchant and
 * environment): what a connector's callback receiver matches the reported amount and currency on.
 */
export async function storedRailRefund(store: EventStore, refundId: string, owner: Owner): Promise<RailRefundRecord | null> {
  const { state } = await loadState(store, railRefundStream(refundId), railRefundDecider);
  return isOwned(state.refund, owner) ? state.refund : null;
}

/** The port's request of a refund: its id is the idempotency key with the rail (reconciliation asks the rail with it too). */
export function railRefundRequest(r: RailRefundRecord): RefundRequest {
  return { refundId: r.id, operationId: r.operationId, merchantId: r.merchantId, environment: r.environment, amount: r.amount, currency: r.currency };
}
