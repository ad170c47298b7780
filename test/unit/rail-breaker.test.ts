/**
 * A rail's breaker (packages/connectors/health.ts): the outcomes of Sika's attempts on one rail
 * and subject, replayed on a manual clock, open it at the threshold, keep it aside for the leak
 * interval, then let exactly one probe go, whose answer closes or opens it again. The breaker
 * kept between questions (RailBreaker, the router's) answers as the replay of all its attempts.
 */
import fc from 'fast-check';
import t from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { BREAKER_DEFAULTS, breakerAt, classify, isSetAside, RailBreaker, type OutcomeClass, type RailAttempt } from '#packages/connectors/health.js';

const MIN = 60_000;
const LEAK = BREAKER_DEFAULTS.leakIntervalMs;

/** Attempts on one rail, each started and answered on the clock (an `unknown` one never answers). */
function rail() {
  const clock = new ManualClock(new Date('2026-03-01T08:00:00Z'));
  const attempts: RailAttempt[] = [];
  const now = () => clock.now().getTime();
  return {
    clock,
    attempts,
    /** An attempt started now and answered `after` ms later (the clock does not move). */
    attempt(outcome: OutcomeClass, after = 1_000): RailAttempt {
      const a = { startedAt: now(), finishedAt: outcome === 'unknown' ? null : now() + after, outcome };
      attempts.push(a);
      return a;
    },
    /** `n` attempts of `outcome`, one a second, the clock moving past their answers. */
    several(n: number, outcome: OutcomeClass): void {
      for (let i = 0; i < n; i++) {
        this.attempt(outcome);
        clock.advance(1_000);
      }
      clock.advance(1_000);
    },
    state: () => breakerAt(attempts, now()),
  };
}

t.test("outcome classes: the rail faults are technical, any other failure the payer's, no answer unknown", async (t) => {
  t.equal(classify('succeeded', null), 'success');
  t.equal(classify('failed', 'operator_unavailable'), 'technical');
  t.equal(classify('failed', 'initiation_failed'), 'technical');
  t.equal(classify('failed', 'insufficient_funds'), 'payer_fault');
  t.equal(classify('failed', null), 'payer_fault');
  t.equal(classify('pending', null), 'unknown');
});

t.test('closed until the technical failures of the window reach the threshold, then open for the leak interval', async (t) => {
  const r = rail();
  r.several(4, 'technical');
  t.same(r.state(), { state: 'closed' }, 'four are below the threshold');
  r.several(1, 'technical');
  const state = r.state();
  t.equal(state.state, 'open', 'the fifth opens it');
  t.ok(isSetAside(state));
  const openedAt = r.attempts[4]!.finishedAt!;
  t.same(state, { state: 'open', until: openedAt + LEAK }, 'for one leak interval from the answer that opened it');
  r.clock.set(new Date(openedAt + LEAK - 1));
  t.equal(r.state().state, 'open', 'still aside a millisecond before');
  r.clock.set(new Date(openedAt + LEAK));
  t.same(r.state(), { state: 'half_open', since: openedAt + LEAK, probeInFlight: false }, 'then half-open: a probe may go');
  t.notOk(isSetAside(r.state()), 'the router may send the probe');
});

t.test("the payer's faults count neither way, nor do attempts with no answer; successes do", async (t) => {
  const r = rail();
  r.several(20, 'payer_fault');
  r.several(20, 'unknown');
  t.same(r.state(), { state: 'closed' }, 'forty failures of payers and silences: closed');
  r.several(5, 'technical');
  t.equal(r.state().state, 'open', "five technical failures of five answers that say something of the rail: the payers' twenty do not hide them");

  const diluted = rail();
  diluted.several(10, 'success');
  diluted.several(5, 'technical');
  t.same(diluted.state(), { state: 'closed' }, 'five technical failures are not half of fifteen answers with ten successes');
  diluted.several(5, 'technical');
  t.equal(diluted.state().state, 'open', 'ten of twenty: half, open');
});

t.test('the share: technical failures must be at least half the final answers of the window', async (t) => {
  const r = rail();
  r.several(6, 'success');
  r.several(5, 'technical');
  t.same(r.state(), { state: 'closed' }, 'five of eleven');
  r.several(1, 'technical');
  t.equal(r.state().state, 'open', 'six of twelve');
});

t.test('the window slides: failures older than it are forgotten', async (t) => {
  const r = rail();
  r.several(4, 'technical');
  r.clock.advance(BREAKER_DEFAULTS.windowMs);
  r.several(1, 'technical');
  t.same(r.state(), { state: 'closed' }, 'the first four left the window before the fifth came');
  r.several(4, 'technical');
  t.equal(r.state().state, 'open', 'five within ten minutes');
});

t.test('half-open: exactly one probe; while it has no answer nothing else goes; its success closes', async (t) => {
  const r = rail();
  r.several(5, 'technical');
  r.clock.advance(LEAK);
  t.equal(r.state().state, 'half_open');
  const probe = r.attempt('success', 30_000);
  t.match(r.state(), { state: 'half_open', probeInFlight: true }, 'the probe is out');
  t.ok(isSetAside(r.state()), 'nothing else goes meanwhile');
  r.clock.advance(29_000);
  t.ok(isSetAside(r.state()), 'still out a second before its answer');
  r.clock.advance(1_000);
  t.same(r.state(), { state: 'closed' }, 'its success closes the breaker');
  t.equal(probe.finishedAt, r.clock.now().getTime());
  r.several(4, 'technical');
  t.same(r.state(), { state: 'closed' }, 'only answers after the probe count: the five before it are gone');
  r.several(1, 'technical');
  t.equal(r.state().state, 'open', 'five new ones open it again');
});

t.test("a probe's technical failure opens it for another leak interval; a late answer of an older attempt changes nothing", async (t) => {
  const r = rail();
  r.several(4, 'technical');
  const late = r.attempt('success', 8 * MIN);
  r.clock.advance(1_000);
  r.several(1, 'technical');
  t.equal(r.state().state, 'open');
  r.clock.advance(LEAK);
  r.attempt('technical', 10_000);
  r.clock.advance(10_000);
  const reopened = r.state();
  t.same(reopened, { state: 'open', until: r.clock.now().getTime() + LEAK }, "aside again from the probe's answer");
  r.clock.set(new Date(late.finishedAt! + 1));
  t.equal(r.state().state, 'open', 'the success of an attempt started before the rail was set aside does not close it');
  r.clock.set(new Date((reopened as { until: number }).until));
  t.match(r.state(), { state: 'half_open', probeInFlight: false }, 'another probe may go after the second interval');
});

t.test("a probe that ends in the payer's fault tells nothing: the next attempt is the probe", async (t) => {
  const r = rail();
  r.several(5, 'technical');
  r.clock.advance(LEAK);
  r.attempt('payer_fault', 2_000);
  r.clock.advance(2_000);
  t.match(r.state(), { state: 'half_open', probeInFlight: false });
  r.attempt('success', 2_000);
  t.match(r.state(), { state: 'half_open', probeInFlight: true });
  r.clock.advance(2_000);
  t.same(r.state(), { state: 'closed' });
});

t.test('a probe with no answer is given up after a leak interval, so that one lost answer cannot keep the rail aside', async (t) => {
  const r = rail();
  r.several(5, 'technical');
  r.clock.advance(LEAK);
  r.attempt('unknown');
  r.clock.advance(LEAK - 1);
  t.ok(isSetAside(r.state()), 'the unanswered probe holds the rail aside');
  r.clock.advance(1);
  t.match(r.state(), { state: 'half_open', probeInFlight: false }, 'then another probe may go');
  r.attempt('success', 1_000);
  r.clock.advance(1_000);
  t.same(r.state(), { state: 'closed' });
});

t.test('the options: a lower threshold opens sooner, a shorter interval ends sooner', async (t) => {
  const r = rail();
  r.several(2, 'technical');
  const options = { ...BREAKER_DEFAULTS, threshold: 2, minFinals: 2, leakIntervalMs: MIN };
  const now = r.clock.now().getTime();
  t.equal(breakerAt(r.attempts, now, options).state, 'open');
  t.equal(breakerAt(r.attempts, now).state, 'closed', 'the defaults need five');
  t.equal(breakerAt(r.attempts, now + MIN, options).state, 'half_open');
});

t.test('a probe answered at the instant it started (a manual clock, an answer at once) closes the breaker', async (t) => {
  const r = rail();
  r.several(5, 'technical');
  const opened = r.state();
  if (opened.state !== 'open') throw new Error('expected open');
  r.clock.set(new Date(opened.until));
  t.same(r.state(), { state: 'half_open', since: opened.until, probeInFlight: false });
  r.attempt('success', 0);
  t.same(r.state(), { state: 'closed' }, 'its own answer is read after its start, never before');
});

t.test('a breaker kept between questions, fed attempts as they come, answers as the replay of all of them', async (t) => {
  const S = 1_000;
  const options = fc.record({
    windowMs: fc.integer({ min: 1, max: 20 }).map((n) => n * S),
    threshold: fc.integer({ min: 1, max: 4 }),
    minShare: fc.constantFrom(0, 0.5, 1),
    minFinals: fc.integer({ min: 1, max: 4 }),
    leakIntervalMs: fc.integer({ min: 1, max: 10 }).map((n) => n * S),
  });
  const outcome = fc.constantFrom<OutcomeClass>('success', 'technical', 'technical', 'payer_fault');
  // Attempts start now or a little before or after (an answer dated in the past, a send on a
  // manual clock); the clock mostly moves on, sometimes stands still or goes back.
  const step = fc.oneof(
    fc.record({ add: fc.record({ startOffset: fc.integer({ min: -3, max: 2 }).map((n) => n * S), answerAfter: fc.option(fc.integer({ min: 0, max: 5 }).map((n) => n * S)), outcome }) }),
    fc.record({ tick: fc.integer({ min: -2, max: 8 }).map((n) => n * S) }),
    fc.constant({ ask: true }),
  );
  let questions = 0;
  fc.assert(
    fc.property(options, fc.array(step, { maxLength: 80 }), (opts, steps) => {
      let now = Date.UTC(2026, 2, 1, 8);
      const attempts: RailAttempt[] = [];
      const kept = new RailBreaker([], opts);
      for (const s of steps) {
        if ('add' in s) {
          const startedAt = now + s.add.startOffset;
          const attempt: RailAttempt = s.add.answerAfter === null ? { startedAt, finishedAt: null, outcome: 'unknown' } : { startedAt, finishedAt: startedAt + s.add.answerAfter, outcome: s.add.outcome };
          attempts.push(attempt);
          kept.add(attempt);
        } else if ('tick' in s) now += s.tick;
        else {
          questions++;
          if (JSON.stringify(kept.at(now)) !== JSON.stringify(breakerAt(attempts, now, opts))) return false;
        }
      }
      return true;
    }),
    { numRuns: 3000, seed: 20261129 },
  );
  t.ok(questions > 3000, `${questions} questions asked of both`);
});
