import type { Environment } from '#packages/core/owner.js';
import { isRefused } from '#packages/core/refusal.js';
import { OutcomeUnknown, reportedMismatch, withReceipt, type CollectOutcome, type PayoutReport, type StatusAnswer } from './port.js';

/**
 * The inbound side of the rails: a connector turns what its provider tells (a verified callback, a
 * status check's answer, the sandbox's timer) into these normalised results, and hands them to its
 * sinks, which schedule the callback jobs. A job's dedupe key holds the operation and the news, so
 * the same news told twice is applied once.
 */

/** A collection's final answer, as the `payin.callback` job carries it. */
export interface CollectCallback {
  paymentIntentId: string;
  operationId: string;
  merchantId: string;
  environment: Environment;
  outcome: CollectOutcome;
  /** The connector that told it; jobs queued before connectors were named have none (the sandbox's). */
  connector?: string;
}

/** News about a payout, as the `payout.callback` job carries it. */
export interface PayoutCallback {
  payoutId: string;
  merchantId: string;
  environment: Environment;
  report: PayoutReport;
  /** As in CollectCallback. */
  connector?: string;
}

/** A refund's final answer, as the `refund.callback` job carries it: the refund is named by Sika's id alone (its record says the rest). */
export interface RefundCallback {
  refundId: string;
  merchantId: string;
  environment: Environment;
  outcome: CollectOutcome;
  /** As in CollectCallback. */
  connector?: string;
}

/**
 * A status check of an attempt with no final answer yet, as the `rail.status_check` job carries
 * it: the `attempt`-th of its connector's schedule (docs/connectors.md, "Status checks").
 */
export type StatusCheck = {
  merchantId: string;
  environment: Environment;
  connector: string;
  attempt: number;
  /**
   * How many times a check sent the attempt again and started the schedule again from that send
   * (`attempt` from 0); none: never. Bounded by MAX_RESENDS: later resends follow the schedule.
   */
  resends?: number;
  /** Asked for now by news that could not be believed as told (a callback): outside the schedule, which goes on by itself. */
  prompted?: true;
} & ({ direction: 'collect'; paymentIntentId: string; operationId: string } | { direction: 'payout'; payoutId: string } | { direction: 'refund'; refundId: string });

/**
 * How many resends start the schedule again from their send, at most (each answer is then asked
 * for on the first delay). An attempt the provider keeps refusing to record (a 5xx each time) is
 * still sent again by each later check, on the schedule's growing delays, and goes to review
 * (`bin/sika rails review`) when the schedule runs out, instead of being sent every first delay forever.
 */
export const MAX_RESENDS = 3;

/**
 * A status check's reading of the provider's answer, the same for every attempt (docs/connectors.md,
 * "Status checks"): `resend` when the provider has no record of it and sending it again under the
 * same id is safe (the provider keeps one record per id);
 * `absent` when it has none but may yet show one (nothing is sent: the next check asks again);
 * `review` when the money it reports is not the attempt's (nothing applied), else `found`, with
 * its final answer (the operator's receipt kept) or null while it has none.
 */
export type StatusReading<F> = { kind: 'resend' } | { kind: 'absent' } | { kind: 'review'; mismatch: string } | { kind: 'found'; final: F | null };

export function readStatus<F extends CollectOutcome | PayoutReport>(answer: StatusAnswer<F>, attempt: { amount: number; currency: string }, check: { sendsAgain: boolean; resends?: number }): StatusReading<F> {
  if (!answer.found) return check.sendsAgain ? { kind: 'resend' } : { kind: 'absent' };
  const mismatch = reportedMismatch(attempt, answer.reported);
  if (mismatch) return { kind: 'review', mismatch };
  return { kind: 'found', final: answer.final && withReceipt(answer.final, answer.reported) };
}

/**
 * An attempt sent again under its own id, the provider having never taken it: the provider's
 * answer, or null when none came (lost, or provably not sent), for the next check to decide.
 */
export async function sendAgain<A>(send: () => Promise<A>, noAnswer: (err: unknown) => void): Promise<A | null> {
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof OutcomeUnknown) && !isRefused(err, 'IKW-PRV-002')) throw err;
    noAnswer(err);
    return null;
  }
}

/**
 * The check after `check` on its connector's schedule (each delay counted from the check before),
 * or null when the schedule has run out: the attempt then stays open for review, never failed by
 * guess. After a check that sent the attempt again (`resent`), the schedule starts again from that
 * send, MAX_RESENDS times at most: its answer is known within the first delay, not at the next step
 * of the old schedule; later resends follow the schedule. A prompted check sets none, unless it
 * started the schedule again.
 */
export function nextStatusCheck<C extends StatusCheck>(schedule: readonly number[], check: C, now: Date, resent = false): { check: C; at: Date } | null {
  if (resent && (check.resends ?? 0) < MAX_RESENDS) {
    const { prompted: _prompted, ...rest } = check;
    const first = schedule[0];
    return first === undefined ? null : { check: { ...rest, attempt: 0, resends: (check.resends ?? 0) + 1 } as C, at: new Date(now.getTime() + first) };
  }
  if (check.prompted) return null;
  const delay = schedule[check.attempt + 1];
  return delay === undefined ? null : { check: { ...check, attempt: check.attempt + 1 }, at: new Date(now.getTime() + delay) };
}

/** The dedupe key part of a status check: its place in its schedule, restarted by each resend. */
export function statusCheckKey(check: StatusCheck): string {
  return `${check.resends ? `r${check.resends}.` : ''}${check.attempt}${check.prompted ? ':prompted' : ''}`;
}

/** Where news goes: at `at`, the callback is applied (durably scheduled). */
export interface CallbackSinks {
  collect(callback: CollectCallback, at: Date): Promise<void>;
  payout(callback: PayoutCallback, at: Date): Promise<void>;
}

/** The sinks a connector is built with: what it passes on is stamped with its name. */
export interface ConnectorSinks {
  collect(callback: Omit<CollectCallback, 'connector'>, at: Date): Promise<void>;
  payout(callback: Omit<PayoutCallback, 'connector'>, at: Date): Promise<void>;
}

export function sinksOf(connector: string, sinks: CallbackSinks): ConnectorSinks {
  return {
    collect: (callback, at) => sinks.collect({ ...callback, connector }, at),
    payout: (callback, at) => sinks.payout({ ...callback, connector }, at),
  };
}

/** The actor the news of a connector is recorded with in the audit trail. */
export function connectorActor(news: { connector?: string }): string {
  return `connector:${news.connector ?? 'sandbox'}`;
}
