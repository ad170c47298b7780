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

// At one instant: answers of attempts started before it, then starts, then answers of attempts
// started at that instant (an attempt answered at once, on a manual clock): a probe that starts as
// another attempt ends sees that answer, and an attempt's own answer never comes before its start.
const rank = (step: Step) => (step.kind === 'start' ? 1 : step.attempt.startedAt < step.at ? 0 : 2);
const inOrder = (a: Step, b: Step) => a.at - b.at || rank(a) - rank(b);

/** An attempt's steps: its start, and its answer when it has one that says something. */
function stepsOf(attempt: RailAttempt): Step[] {
  const steps: Step[] = [{ at: attempt.startedAt, kind: 'start', attempt }];
  if (attempt.finishedAt !== null && attempt.outcome !== 'unknown') steps.push({ at: attempt.finishedAt, kind: 'finish', attempt });
  return steps;
}

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
  return new RailBreaker(attempts, options).at(now);
}

/**
 * One rail and subject's breaker kept between questions (the router asks it for every attempt):
 * its attempts' steps are replayed once, up to the time asked, and the attempts added since are fed
 * as time reaches them, instead of replaying all of them each time. It answers as `breakerAt` over
 * the same attempts would; a step that would have come before what was already replayed (the clock
 * set back, an answer dated in the past) replays the whole again.
 */
export class RailBreaker {
  private readonly attempts: RailAttempt[];
  private replay!: Replay;
  /** Steps not replayed yet, in replay order (those later than the time last asked). */
  private pending!: Step[];
  private stale = false;

  constructor(
    attempts: readonly RailAttempt[],
    private readonly options: BreakerOptions = BREAKER_DEFAULTS,
  ) {
    this.attempts = [...attempts];
    this.restart();
  }

  /** An attempt more (one just sent, say). */
  add(attempt: RailAttempt): void {
    this.attempts.push(attempt);
    for (const step of stepsOf(attempt)) {
      if (!this.replay.accepts(step)) this.stale = true;
      // After every pending step it does not come before: as a stable sort of the attempts in order.
      let i = this.pending.length;
      while (i > 0 && inOrder(step, this.pending[i - 1]!) < 0) i--;
      this.pending.splice(i, 0, step);
    }
  }

  /** The breaker at `now`. */
  at(now: number): BreakerState {
    if (this.stale || now < this.replay.time) this.restart();
    let fed = 0;
    while (fed < this.pending.length && this.pending[fed]!.at <= now) this.replay.feed(this.pending[fed++]!);
    if (fed > 0) this.pending.splice(0, fed);
    return this.replay.at(now);
  }

  private restart(): void {
    this.replay = new Replay(this.options);
    this.pending = this.attempts.flatMap(stepsOf).sort(inOrder);
    this.stale = false;
  }
}

/** The breaker's machine, fed steps in replay order (see breakerAt). */
class Replay {
  private state: BreakerState = { state: 'closed' };
  private countFrom = -Infinity;
  /** The window's final answers from `head` on, in time order, and how many of those are technical. */
  private window: { at: number; technical: boolean }[] = [];
  private head = 0;
  private technical = 0;
  private probe: { attempt: RailAttempt; since: number } | null = null;
  private last: Step | null = null;
  /** How far it has replayed: steps and time passed up to here. */
  time = -Infinity;

  constructor(private readonly options: BreakerOptions) {}

  /** Whether the step comes after everything replayed. */
  accepts(step: Step): boolean {
    return step.at >= this.time && (this.last === null || inOrder(this.last, step) <= 0);
  }

  at(now: number): BreakerState {
    this.advance(now);
    return this.state;
  }

  feed(step: Step): void {
    this.advance(step.at);
    this.last = step;
    if (this.state.state === 'half_open') {
      if (step.kind === 'start' && !this.probe) {
        this.probe = { attempt: step.attempt, since: step.at };
        this.state = { ...this.state, probeInFlight: true };
      } else if (step.kind === 'finish' && this.probe?.attempt === step.attempt) {
        this.probe = null;
        if (step.attempt.outcome === 'success') {
          this.state = { state: 'closed' };
          this.countFrom = step.at;
          this.clearWindow();
        } else if (step.attempt.outcome === 'technical') this.open(step.at);
        else this.state = { state: 'half_open', since: step.at, probeInFlight: false };
      }
      return;
    }
    // The payer's faults say nothing of the rail, for it or against it: they are not in the window.
    if (this.state.state !== 'closed' || step.kind !== 'finish' || step.at <= this.countFrom || step.attempt.outcome === 'payer_fault') return;
    const technical = step.attempt.outcome === 'technical';
    this.window.push({ at: step.at, technical });
    if (technical) this.technical++;
    for (; this.head < this.window.length && this.window[this.head]!.at <= step.at - this.options.windowMs; this.head++) if (this.window[this.head]!.technical) this.technical--;
    if (this.head > 1024 && this.head * 2 > this.window.length) {
      this.window = this.window.slice(this.head);
      this.head = 0;
    }
    const finals = this.window.length - this.head;
    if (technical && this.technical >= this.options.threshold && finals >= this.options.minFinals && this.technical >= this.options.minShare * finals) this.open(step.at);
  }

  // Time passing alone: the interval ends, a probe unanswered for an interval is given up.
  private advance(to: number): void {
    for (;;) {
      if (this.state.state === 'open' && this.state.until <= to) {
        this.state = { state: 'half_open', since: this.state.until, probeInFlight: false };
      } else if (this.state.state === 'half_open' && this.probe && this.probe.since + this.options.leakIntervalMs <= to) {
        this.state = { state: 'half_open', since: this.probe.since + this.options.leakIntervalMs, probeInFlight: false };
        this.probe = null;
      } else break;
    }
    if (to > this.time) this.time = to;
  }

  private open(at: number): void {
    this.state = { state: 'open', until: at + this.options.leakIntervalMs };
    this.probe = null;
    this.clearWindow();
  }

  private clearWindow(): void {
    this.window = [];
    this.head = 0;
    this.technical = 0;
  }
}
