import type { Knex } from 'knex';
import type { Environment } from '#packages/core/owner.js';
import { RAIL_FAULTS, type PassedOverRail } from '#packages/connectors/port.js';

/** The direction an attempt went: payments collected from payers, or payouts sent to recipients. */
export type RailDirection = 'collect' | 'payout';

/**
 * The attempts the rails carried, one table per direction (payments' and payouts' read sides keep
 * theirs), in one shape: what the rails' measured health is counted from, and the router's recent
 * decisions are listed from (docs/operator.md, "Rails").
 */
export const RAIL_ATTEMPT_TABLES: Record<RailDirection, string> = { collect: 'read.payment_rail_attempts', payout: 'read.payout_rail_attempts' };

/** The columns of both tables as created; later ones come by the tables' own migrations (addRailDecisionColumns). */
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

/** `rail_faults`: the attempts that failed for the rail's own reasons (RAIL_FAULTS), not the payer's or the recipient's. */
export const railFaultsCount = (knex: Knex) => knex.raw(`count(*) FILTER (WHERE outcome = 'failed' AND failure_code = ANY(?)) AS rail_faults`, [[...RAIL_FAULTS]]);

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
      railFaultsCount(knex),
      knex.raw(`count(*) FILTER (WHERE outcome = 'pending') AS pending`),
    );
  return rows.map((r) => ({
    rail: r.rail,
    kind: r.kind,
    country: r.country,
    operator: r.operator,
    currency: r.currency,
    attempts: Number(r.attempts),
    succeeded: Number(r.succeeded),
    failed: Number(r.failed),
    railFaults: Number(r.rail_faults),
    pending: Number(r.pending),
  }));
}

/**
 * The columns a list of the router's decisions needs, added to a table of attempts: its merchant, the
 * object it carried (the payment intent, the payout) and the rails passed over for it (null: none).
 * Rows already there get them from this database's log; a log kept elsewhere (EventStoreDB) gives
 * them at the next rebuild (`bin/sika projections rebuild <name>`).
 */
export async function addRailDecisionColumns(knex: Knex, table: string, backfill: string): Promise<void> {
  await knex.raw(`ALTER TABLE ${table} ADD COLUMN merchant_id text, ADD COLUMN object_id text, ADD COLUMN passed_over jsonb`);
  const { rows } = await knex.raw<{ rows: { events: string | null }[] }>(`SELECT to_regclass('events')::text AS events`);
  if (rows[0]?.events) await knex.raw(backfill);
}

/**
 * When an attempt was last active, started or finished: the rails' health reads the attempts of
 * its horizon by it (services/rail-health.ts). NULL is ignored by `greatest`, so a pending
 * attempt counts from its start.
 */
export const RAIL_ATTEMPT_ACTIVE_AT = 'greatest(started_at, finished_at)';

/**
 * A BRIN index on RAIL_ATTEMPT_ACTIVE_AT: the health reading every 2 seconds reads the recent end
 * of the table instead of all of it. Rows are written in about the order of that time, and a BRIN
 * index is summarizing, so an attempt's finishing update stays HOT (PostgreSQL 16 and later).
 */
export async function addRailActivityIndex(knex: Knex, table: string): Promise<void> {
  await knex.raw(`CREATE INDEX ${table.replace(/^read\./, '')}_active_at ON ${table} USING brin ((${RAIL_ATTEMPT_ACTIVE_AT}))`);
}

/** The rails passed over as a row keeps them (the value itself: rows travel as JSON, packages/read-models/batch.ts); null when none was. */
export const passedOverColumn = (passedOver: readonly PassedOverRail[] | undefined): readonly PassedOverRail[] | null => (passedOver && passedOver.length > 0 ? passedOver : null);

/** One decision of the router: the attempt it sent through a rail, and the rails it passed over for it. */
export interface RailDecision {
  at: Date;
  direction: RailDirection;
  rail: string;
  kind: string;
  country: string | null;
  operator: string | null;
  currency: string;
  /** Null only for a row of a log kept elsewhere, until its read model is rebuilt. */
  merchantId: string | null;
  objectId: string | null;
  /** Empty when nothing was passed over. `why` is kept as recorded: newer reasons than this code knows pass through. */
  passedOver: { rail: string; why: string }[];
  outcome: string;
}

type RailDecisionRow = {
  started_at: Date;
  direction: RailDirection;
  rail: string;
  kind: string;
  country: string | null;
  operator: string | null;
  currency: string;
  merchant_id: string | null;
  object_id: string | null;
  passed_over: { rail: string; why: string }[] | null;
  outcome: string;
};

const NEWEST_FIRST = [
  { column: 'started_at', order: 'desc' },
  { column: 'id', order: 'desc' },
] as const;

/** The newest attempts of `environment` in both directions, newest first; `passedOverOnly`: only those for which a rail was passed over. */
export async function recentRailDecisions(knex: Knex, environment: Environment, options: { limit: number; passedOverOnly: boolean }): Promise<RailDecision[]> {
  const columns = ['id', 'started_at', 'rail', 'kind', 'country', 'operator', 'currency', 'merchant_id', 'object_id', 'passed_over', 'outcome'];
  // Each direction's newest `limit` (its index on environment and started_at), then the newest of both.
  const newest = (direction: RailDirection) => {
    const q = knex(RAIL_ATTEMPT_TABLES[direction])
      .where({ environment })
      .select(knex.raw('?::text AS direction', [direction]), ...columns)
      .orderBy([...NEWEST_FIRST])
      .limit(options.limit);
    return (options.passedOverOnly ? q.whereNotNull('passed_over') : q).as(direction);
  };
  const both = knex
    .select('*')
    .from(newest('collect'))
    .unionAll(knex.select('*').from(newest('payout')), true);
  const rows = await knex
    .select<RailDecisionRow[]>('*')
    .from(both.as('decisions'))
    .orderBy([...NEWEST_FIRST])
    .limit(options.limit);
  return rows.map((r) => ({
    at: r.started_at,
    direction: r.direction,
    rail: r.rail,
    kind: r.kind,
    country: r.country,
    operator: r.operator,
    currency: r.currency,
    merchantId: r.merchant_id,
    objectId: r.object_id,
    passedOver: r.passed_over ?? [],
    outcome: r.outcome,
  }));
}
