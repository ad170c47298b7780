import type { Knex } from 'knex';
import type { Environment } from '../packages/core/owner.js';
import { RAIL_FAULTS } from '../packages/connectors/port.js';

/**
 * The attempts the rails carried, one table per direction (payments' and payouts' read sides keep
 * theirs), in one shape: what the rails' measured health is counted from (docs/operator.md, "Rails").
 */
export const RAIL_ATTEMPT_COLUMNS = `
  id text PRIMARY KEY,
  rail text NOT NULL,
  environment text NOT NULL,
  kind text NOT NULL,
  country text,
  operator text,
  currency text NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  outcome text NOT NULL,
  failure_code text`;

/**
 * The rail an attempt recorded as carrying it; attempts record one only when the rail keeps Sika's
 * money (docs/ledger.md), so the others are the sandbox's, or live ones of a rail that keeps none.
 */
export function railOf(connector: string | undefined, environment: Environment): string {
  return connector ?? (environment === 'sandbox' ? 'sandbox' : 'unrecorded');
}

/** One rail's attempts for one subject (mobile money: country and operator; a bank: its code; cards) in a window. */
export interface RailAttemptOutcomes {
  rail: string;
  kind: string;
  country: string | null;
  operator: string | null;
  currency: string;
  attempts: number;
  succeeded: number;
  failed: number;
  /** Of the failures, those that say the rail failed, not the payer or the recipient (RAIL_FAULTS). */
  railFaults: number;
  /** Still without a final answer. */
  pending: number;
}

/** The attempts started in `table` since `since`, counted per rail and subject. */
export async function railOutcomes(knex: Knex, table: string, environment: Environment, since: Date): Promise<RailAttemptOutcomes[]> {
  const rows = await knex(table)
    .where({ environment })
    .andWhere('started_at', '>=', since)
    .groupBy('rail', 'kind', 'country', 'operator', 'currency')
    .orderBy(['rail', 'kind', 'country', 'operator', 'currency'])
    .select<{ rail: string; kind: string; country: string | null; operator: string | null; currency: string; attempts: string; succeeded: string; failed: string; rail_faults: string; pending: string }[]>(
      'rail',
      'kind',
      'country',
      'operator',
      'currency',
      knex.raw('count(*) AS attempts'),
      knex.raw(`count(*) FILTER (WHERE outcome = 'succeeded') AS succeeded`),
      knex.raw(`count(*) FILTER (WHERE outcome = 'failed') AS failed`),
      knex.raw(`count(*) FILTER (WHERE outcome = 'failed' AND failure_code = ANY(?)) AS rail_faults`, [[...RAIL_FAULTS]]),
      knex.raw(`count(*) FILTER (WHERE outcome = 'pending') AS pending`),
    );
  return rows.map((r) => ({ rail: r.rail, kind: r.kind, country: r.country, operator: r.operator, currency: r.currency, attempts: Number(r.attempts), succeeded: Number(r.succeeded), failed: Number(r.failed), railFaults: Number(r.rail_faults), pending: Number(r.pending) }));
}
