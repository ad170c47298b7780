import type { Knex } from 'knex';
import type { Clock } from '../packages/core/clock.js';
import type { Environment } from '../packages/core/owner.js';
import type { Availability, RailSubject } from '../packages/connectors/port.js';
import type { ConnectorRouter } from '../packages/connectors/router.js';
import type { RailAttemptOutcomes } from '../projections/rail-attempts.js';
import { paymentRailOutcomes } from '../projections/payments/index.js';
import { payoutRailOutcomes } from '../projections/payouts/index.js';

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
export async function railHealth(deps: { knex: Knex; connectors: ConnectorRouter; clock: Clock }, environment: Environment): Promise<RailHealthLine[]> {
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
      lines.push({ rail: o.rail, direction, kind: o.kind, country: o.country, operator: o.operator, currency: o.currency, availability, lastHour: measure(lastHour.get(keyOf(o)) ?? NONE), lastDay: measure(o) });
    }
  }
  return lines;
}
