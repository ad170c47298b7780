import { RAIL_FAULTS } from './port.js';

/**
 * A rail's measured health as a breaker (docs/connectors.md, "Health"): pure, fed the outcomes of
 * Sika's own attempts on one (environment, rail, direction, country, operator) and the time now.
 * What reads them from the read models is services/rail-health.ts; what consults the verdict, the router.
 */

/**
 * How an attempt ended, as the rail's health counts it: `technical` (a failure in RAIL_FAULTS,
 * the rail's), `payer_fault` (any other failure: the payer, the recipient or the request, never
 * counted against the rail), `success`, or `unknown` (no final answer yet: never counted).
 */
export type OutcomeClass = 'success' | 'payer_fault' | 'technical' | 'unknown';

/** The class of an attempt from its read model's outcome (`succeeded`, `failed`, `pending`) and failure code. */
export function classify(outcome: string, failureCode: string | null): OutcomeClass {
  if (outcome === 'succeeded') return 'success';
  if (outcome === 'failed') return failureCode !== null && RAIL_FAULTS.has(failureCode) ? 'technical' : 'payer_fault';
  return 'unknown';
}

/** One attempt: when it started, and when its final answer came (null: none yet, its class `unknown`). Times in ms. */
export interface RailAttempt {
  startedAt: number;
  finishedAt: number | null;
  outcome: OutcomeClass;
}

/** When a rail is set aside and for how long (RAIL_HEALTH_* in the configuration). */
export interface BreakerOptions {
  /** RAIL_HEALTH_WINDOW: the sliding window of final answers counted. Default 10 min. */
  windowMs: number;
  /** RAIL_HEALTH_THRESHOLD: the technical failures within the window that set the rail aside. Default 5. */
  threshold: number;
  /** And the share of the window's final answers they must be at least. Default 0.5. */
  minShare: number;
  /** And the final answers the window must hold at least. Default 5 (the threshold's own). */
  minFinals: number;
  /** RAIL_HEALTH_LEAK_INTERVAL: how long a rail is set aside before one probe attempt may go. Default 5 min. */
  leakIntervalMs: number;
}

export const BREAKER_DEFAULTS: Readonly<BreakerOptions> = { windowMs: 10 * 60_000, threshold: 5, minShare: 0.5, minFinals: 5, leakIntervalMs: 5 * 60_000 };

/**
 * Where a rail stands: `closed` (it carries), `open` until `until` (set aside), `half_open` since
 * `since` (one probe may go; `probeInFlight` while the probe has no final answer, when nothing else goes).
 */
export type BreakerState = { state: 'closed' } | { state: 'open'; until: number } | { state: 'half_open'; since: number; probeInFlight: boolean };

/** Whether the router passes the rail over: open, or half-open with its probe out. */
export function isSetAside(breaker: BreakerState): boolean {
  return breaker.state === 'open' || (breaker.state === 'half_open' && breaker.probeInFlight);
}

type Step = { at: number; kind: 'start' | 'finish'; attempt: RailAttempt };

/**
 * The breaker of one rail and subject at `now`, replaying its attempts in time order:
 * - closed → open when a final answer brings the window's technical failures to the threshold
 *   (and to `minShare` of at least `minFinals` answers that say something of the rail: successes and technical failures); open for `leakIntervalMs`;
 * - open → half-open once the interval is over: the first attempt started from then on is the probe;
 * - the probe's success closes it, and only answers after it count from then on; its technical
 *   failure opens it again for another interval; the payer's fault tells nothing of the rail, and
 *   the next attempt is a probe again. A probe with no answer after a whole leak interval is given
 *   up the same way, so that a lost answer cannot keep a rail aside for good.
 * Answers of attempts started before the rail was half-open change nothing while it is not closed.
 */
export function breakerAt(attempts: readonly RailAttempt[], now: number, options: BreakerOptions = BREAKER_DEFAULTS): BreakerState {
  const steps: Step[] = [];
  for (const attempt of attempts) {
    if (attempt.startedAt <= now) steps.push({ at: attempt.startedAt, kind: 'start', attempt });
    if (attempt.finishedAt !== null && attempt.finishedAt <= now && attempt.outcome !== 'unknown') steps.push({ at: attempt.finishedAt, kind: 'finish', attempt });
  }
  // At one instant: answers of attempts started before it, then starts, then answers of attempts
  // started at that instant (an attempt answered at once, on a manual clock): a probe that starts as
  // another attempt ends sees that answer, and an attempt's own answer never comes before its start.
  const rank = (step: Step) => (step.kind === 'start' ? 1 : step.attempt.startedAt < step.at ? 0 : 2);
  steps.sort((a, b) => a.at - b.at || rank(a) - rank(b));

  let state = { state: 'closed' } as BreakerState;
  let countFrom = -Infinity;
  let window: { at: number; outcome: OutcomeClass }[] = [];
  let probe = null as { attempt: RailAttempt; since: number } | null;

  // Time passing alone: the interval ends, a probe unanswered for an interval is given up.
  const advance = (to: number): void => {
    for (;;) {
      if (state.state === 'open' && state.until <= to) {
        state = { state: 'half_open', since: state.until, probeInFlight: false };
      } else if (state.state === 'half_open' && probe && probe.since + options.leakIntervalMs <= to) {
        state = { state: 'half_open', since: probe.since + options.leakIntervalMs, probeInFlight: false };
        probe = null;
      } else return;
    }
  };
  const open = (at: number): void => {
    state = { state: 'open', until: at + options.leakIntervalMs };
    probe = null;
    window = [];
  };

  for (const step of steps) {
    advance(step.at);
    if (state.state === 'half_open') {
      if (step.kind === 'start' && !probe) {
        probe = { attempt: step.attempt, since: step.at };
        state = { ...state, probeInFlight: true };
      } else if (step.kind === 'finish' && probe?.attempt === step.attempt) {
        probe = null;
        if (step.attempt.outcome === 'success') {
          state = { state: 'closed' };
          countFrom = step.at;
          window = [];
        } else if (step.attempt.outcome === 'technical') open(step.at);
        else state = { state: 'half_open', since: step.at, probeInFlight: false };
      }
      continue;
    }
    // The payer's faults say nothing of the rail, for it or against it: they are not in the window.
    if (state.state !== 'closed' || step.kind !== 'finish' || step.at <= countFrom || step.attempt.outcome === 'payer_fault') continue;
    window.push({ at: step.at, outcome: step.attempt.outcome });
    window = window.filter((w) => w.at > step.at - options.windowMs);
    const technical = window.filter((w) => w.outcome === 'technical').length;
    if (step.attempt.outcome === 'technical' && technical >= options.threshold && window.length >= options.minFinals && technical >= options.minShare * window.length) open(step.at);
  }
  advance(now);
  return state;
}
