import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { Environment } from '#packages/core/owner.js';
import { BREAKER_DEFAULTS, classify, isSetAside, RailBreaker, type BreakerOptions, type BreakerState, type RailAttempt } from '#packages/connectors/health.js';
import type { Availability, RailSubject } from '#packages/connectors/port.js';
import type { ConnectorRouter, RailHealthGate } from '#packages/connectors/router.js';
import { RAIL_ATTEMPT_ACTIVE_AT, RAIL_ATTEMPT_TABLES, railFaultsCount, type RailAttemptOutcomes } from '#packages/read-models/rail-attempts.js';
import { paymentRailOutcomes } from '#packages/families/payments/read/index.js';
import { payoutRailOutcomes } from '#packages/families/payouts/read/index.js';

/** A window's counts, and the share of attempts with a final answer that succeeded (null: none has one). */
export interface RailMeasure {
  attempts: number;
  succeeded: number;
  failed: number;
  /** Failures that say the rail failed, not the payer or the recipient. */
  railFaults: number;
  pending: number;
  successRate: number | null;
}

/** One rail, one direction, one subject: what the rail says of it now and what Sika measured. */
export interface RailHealthLine {
  rail: string;
  direction: 'collect' | 'payout';
  kind: string;
  country: string | null;
  operator: string | null;
  currency: string;
  /** What the provider says now; null for a rail this service has no connector of (the sandbox's of old, say). */
  availability: Availability | null;
  lastHour: RailMeasure;
  lastDay: RailMeasure;
  /** Its breaker now (packages/connectors/health.ts): closed, set aside (`open`, until when), or `half_open` (one probe may go); null without a board. */
  breaker: BreakerView | null;
}

/** A breaker as the operator reads it: times as ISO strings. */
export type BreakerView = { state: 'closed' } | { state: 'open'; until: string } | { state: 'half_open'; since: string; probe_in_flight: boolean };

function viewOf(b: BreakerState): BreakerView {
  if (b.state === 'closed') return b;
  if (b.state === 'open') return { state: 'open', until: new Date(b.until).toISOString() };
  return { state: 'half_open', since: new Date(b.since).toISOString(), probe_in_flight: b.probeInFlight };
}

const HOUR_MS = 3_600_000;
const NONE: RailAttemptOutcomes = { rail: '', kind: '', country: null, operator: null, currency: '', attempts: 0, succeeded: 0, failed: 0, railFaults: 0, pending: 0 };

function measure(o: RailAttemptOutcomes): RailMeasure {
  const final = o.succeeded + o.failed;
  return { attempts: o.attempts, succeeded: o.succeeded, failed: o.failed, railFaults: o.railFaults, pending: o.pending, successRate: final === 0 ? null : o.succeeded / final };
}

/** What the connector is asked about: currencies as the catalog writes them. */
function subjectOf(o: RailAttemptOutcomes): RailSubject | null {
  const currency = o.currency.toUpperCase();
  if (o.kind === 'mobile_money' && o.country !== null && o.operator !== null) return { rail: 'mobile_money', country: o.country, operator: o.operator, currency };
  if (o.kind === 'card') return { rail: 'card', currency };
  if (o.kind === 'bank') return { rail: 'bank', currency };
  return null;
}

const keyOf = (o: RailAttemptOutcomes) => JSON.stringify([o.rail, o.kind, o.country, o.operator, o.currency]);

/**
 * Each rail's health in one environment (docs/operator.md, "Rails"): per direction, country and
 * operator (a bank's code) and currency, the attempts of the last hour and the last day and how they ended,
 * beside what the provider says of its availability now. Subjects no attempt touched in the last
 * day are not listed.
 */
export async function railHealth(deps: { knex: Knex; connectors: ConnectorRouter; clock: Clock; board?: RailHealthBoard }, environment: Environment): Promise<RailHealthLine[]> {
  await deps.board?.refresh();
  const now = deps.clock.now().getTime();
  const hour = new Date(now - HOUR_MS);
  const day = new Date(now - 24 * HOUR_MS);
  const lines: RailHealthLine[] = [];
  for (const [direction, outcomes] of [
    ['collect', paymentRailOutcomes],
    ['payout', payoutRailOutcomes],
  ] as const) {
    const lastHour = new Map((await outcomes(deps.knex, environment, hour)).map((o) => [keyOf(o), o]));
    for (const o of await outcomes(deps.knex, environment, day)) {
      const connector = deps.connectors.named(environment, o.rail);
      const subject = subjectOf(o);
      const availability = connector && subject ? await connector.availability(direction, subject) : null;
      const breaker = deps.board ? viewOf(deps.board.breaker(environment, o.rail, direction, o.kind, o.country, o.operator)) : null;
      lines.push({ rail: o.rail, direction, kind: o.kind, country: o.country, operator: o.operator, currency: o.currency, availability, lastHour: measure(lastHour.get(keyOf(o)) ?? NONE), lastDay: measure(o), breaker });
    }
  }
  return lines;
}

/** How far before its own attempt the read model may date an attempt the router just sent (its confirmation's start, its payout's creation). */
const SENT_AFTER_START_MS = 60_000;

/** The columns that name a breaker's subject in both tables of attempts (with the direction, its key). */
const SUBJECT_COLUMNS = ['environment', 'rail', 'kind', 'country', 'operator'] as const;
type Subject = { environment: string; rail: string; kind: string; country: string | null; operator: string | null };

/** The key of one breaker: environment, rail, direction, kind and subject (country and operator; a bank's code). */
const breakerKey = (environment: string, rail: string, direction: string, kind: string, country: string | null, operator: string | null) => JSON.stringify([environment, rail, direction, kind, country, operator]);

function keyOfSubject(environment: Environment, rail: string, direction: 'collect' | 'payout', subject: RailSubject): string | null {
  if (subject.rail === 'mobile_money') return breakerKey(environment, rail, direction, 'mobile_money', subject.country, subject.operator);
  if (subject.rail === 'card') return breakerKey(environment, rail, direction, 'card', null, null);
  // A bank payout is routed by its currency and measured per bank: no one breaker answers for it.
  return null;
}

/** A send the read models do not show yet: started then, no answer. */
const sentAttempt = (at: number): RailAttempt => ({ startedAt: at, finishedAt: null, outcome: 'unknown' });

/**
 * The rails' breakers (docs/connectors.md, "Health"), per environment, rail, direction, country and
 * operator, from Sika's own attempts in the read models (read.payment_rail_attempts,
 * read.payout_rail_attempts): the router's health gate. `refresh()` reads them again; between
 * two refreshes the router reads the last snapshot, on the clock of now (an interval ends without
 * a read). An attempt the router sends through a rail (`sent`) counts at once as started, so that a
 * half-open rail lets one probe go, not one per request until the read models show it. Attempts
 * older than the horizon (three windows and leak intervals) are forgotten: a rail left alone that
 * long starts closed. Attempts of a rail that recorded no connector (`unrecorded`) name no rail the router knows.
 */
export class RailHealthBoard implements RailHealthGate {
  readonly options: BreakerOptions;
  private snapshot = new Map<string, RailAttempt[]>();
  /** Attempts sent since the snapshot that it may not show yet, per key: their send times. */
  private sentSince = new Map<string, number[]>();
  /** The breakers asked about since the snapshot, each replayed once and fed the sends since. */
  private breakers = new Map<string, RailBreaker>();

  constructor(
    private readonly deps: { knex: Knex; clock: Clock },
    options: Partial<BreakerOptions> = {},
  ) {
    this.options = { ...BREAKER_DEFAULTS, ...options };
  }

  /**
   * Reads the attempts of the horizon again, both environments and directions. A subject with
   * fewer rail faults in the horizon than the threshold stays closed whatever its attempts' order
   * (only that many within a window opens a breaker), so the database counts its attempts and
   * only the other subjects' are read one by one: a busy, healthy rail costs a row per subject
   * every refresh, not a row per attempt (docs/connectors.md, "Health").
   */
  async refresh(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    const since = new Date(now - 3 * (this.options.windowMs + this.options.leakIntervalMs));
    const inHorizon = (q: Knex.QueryBuilder) => {
      q.whereRaw(`${RAIL_ATTEMPT_ACTIVE_AT} >= ?`, [since]); // started or finished since
    };
    const snapshot = new Map<string, RailAttempt[]>();
    const lastStarts = new Map<string, number>();
    for (const direction of ['collect', 'payout'] as const) {
      const subjects = await this.deps
        .knex(RAIL_ATTEMPT_TABLES[direction])
        .where(inHorizon)
        .groupBy(SUBJECT_COLUMNS)
        .select<(Subject & { last_start: Date; rail_faults: string })[]>(...SUBJECT_COLUMNS, this.deps.knex.raw('max(started_at) AS last_start'), railFaultsCount(this.deps.knex));
      for (const s of subjects) {
        const key = breakerKey(s.environment, s.rail, direction, s.kind, s.country, s.operator);
        lastStarts.set(key, new Date(s.last_start).getTime());
        if (Number(s.rail_faults) < Math.max(1, this.options.threshold)) continue;
        const rows = await this.deps
          .knex(RAIL_ATTEMPT_TABLES[direction])
          .where(inHorizon)
          .where({ environment: s.environment, rail: s.rail, kind: s.kind, country: s.country, operator: s.operator }) // null: IS NULL
          .orderBy([{ column: 'started_at' }, { column: 'id' }])
          .select<{ started_at: Date; finished_at: Date | null; outcome: string; failure_code: string | null }[]>('started_at', 'finished_at', 'outcome', 'failure_code');
        snapshot.set(
          key,
          rows.map((r) => ({ startedAt: new Date(r.started_at).getTime(), finishedAt: r.finished_at === null ? null : new Date(r.finished_at).getTime(), outcome: classify(r.outcome, r.failure_code) })),
        );
      }
    }
    // A send the read models now show (an attempt started at most a minute before it) is theirs from now on.
    for (const [key, sent] of this.sentSince) {
      const lastStart = lastStarts.get(key) ?? -Infinity;
      const unseen = sent.filter((at) => lastStart < at - SENT_AFTER_START_MS);
      if (unseen.length > 0) this.sentSince.set(key, unseen);
      else this.sentSince.delete(key);
    }
    this.snapshot = snapshot;
    this.breakers.clear();
  }

  /** An attempt the router sends through `rail` now: counted as started until the read models show it. */
  sent(environment: Environment, rail: string, direction: 'collect' | 'payout', subject: RailSubject): void {
    const key = keyOfSubject(environment, rail, direction, subject);
    if (key === null) return;
    const at = this.deps.clock.now().getTime();
    const sent = this.sentSince.get(key);
    if (sent) sent.push(at);
    else this.sentSince.set(key, [at]);
    this.breakers.get(key)?.add(sentAttempt(at));
  }

  setAside(environment: Environment, rail: string, direction: 'collect' | 'payout', subject: RailSubject): boolean {
    const key = keyOfSubject(environment, rail, direction, subject);
    return key !== null && isSetAside(this.at(key));
  }

  /** The breaker of one rail, direction and subject now (a bank's code as its operator). */
  breaker(environment: Environment, rail: string, direction: 'collect' | 'payout', kind: string, country: string | null, operator: string | null): BreakerState {
    return this.at(breakerKey(environment, rail, direction, kind, country, operator));
  }

  private at(key: string): BreakerState {
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = new RailBreaker([...(this.snapshot.get(key) ?? []), ...(this.sentSince.get(key) ?? []).map(sentAttempt)], this.options);
      this.breakers.set(key, breaker);
    }
    return breaker.at(this.deps.clock.now().getTime());
  }
}
