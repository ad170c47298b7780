/**
 * Read models, events in and rows out. `projectionSpec(t, ...projections)` is a fresh database
 * holding only the read schema and those projections' tables; `given(events)` applies events the
 * way the event store does inline (in log order, in one transaction, each to the projections that
 * handle its type); `rows` and `thenRows` read what they wrote. `readModelRows` reads the tables of
 * a running service, to compare a rebuild with the live run.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Test } from 'tap';
import type { DomainEvent } from '#packages/core/decider.js';
import type { EventMetadata, RecordedEvent } from '#packages/eventstore/port.js';
import { encodePosition } from '#packages/eventstore/postgres/store.js';
import { MIGRATIONS } from '../../infra/migrations.js';
import type { Projection } from '#packages/read-models/projection.js';
import { applyEvents } from '#packages/read-models/runner.js';
import { migratedDatabase } from './db.js';

export type Row = Record<string, unknown>;

/** An event as a decider decided it; what only the store knows (stream, metadata, time) may be given too. */
export interface GivenEvent extends DomainEvent {
  streamId?: string;
  metadata?: EventMetadata;
  recordedAt?: Date;
}

export interface ProjectionSpec {
  readonly knex: Knex;
  /** Applies the events after every event given before: in order, in one transaction. */
  given(events: readonly GivenEvent[]): Promise<void>;
  /** The rows of a table, in primary key order. */
  rows(table: string): Promise<Row[]>;
  /**
   * The table holds exactly the expected rows, in primary key order, each compared (t.same) on the
   * columns it names; returns the rows, every column.
   */
  thenRows(t: Test, table: string, expected: readonly Row[], message?: string): Promise<Row[]>;
}

const READ_SCHEMA = MIGRATIONS.find((m) => m.name === 'read/001-schema-checkpoints');

export async function projectionSpec(t: Test, ...projections: Projection[]): Promise<ProjectionSpec> {
  if (!READ_SCHEMA) throw new Error('infra/migrations.ts no longer creates the read schema under the expected name');
  const { knex } = await migratedDatabase(t, { poolSize: 4, migrations: [READ_SCHEMA, ...projections.flatMap((p) => p.migrations)] });
  let logged = 0;
  const rows = (table: string) => orderedRows(knex, table);
  return {
    knex,
    async given(events) {
      const recorded = events.map((e, version): RecordedEvent => {
        logged += 1;
        return {
          eventId: randomUUID(),
          streamId: e.streamId ?? 'test',
          version,
          type: e.type,
          data: e.data,
          metadata: e.metadata ?? {},
          hash: '',
          position: encodePosition('1', String(logged)),
          recordedAt: e.recordedAt ?? new Date('2026-01-01T00:00:00Z'),
        };
      });
      await knex.transaction((trx) => applyEvents(trx, projections, recorded));
    },
    rows,
    async thenRows(t, table, expected, message) {
      const found = await rows(table);
      // Only the columns the test names: ids, sequence numbers and the like are the projection's own.
      const named = found.map((row, i) => Object.fromEntries(Object.keys(expected[i] ?? row).map((column) => [column, row[column]])));
      t.same(named, expected, message ?? table);
      return found;
    },
  };
}

/** Every row of each table, in primary key order: two runs that agree compare equal. */
export async function readModelRows(knex: Knex, tables: readonly string[]): Promise<Record<string, Row[]>> {
  const out: Record<string, Row[]> = {};
  for (const table of tables) out[table] = await orderedRows(knex, table);
  return out;
}

async function orderedRows(knex: Knex, table: string): Promise<Row[]> {
  const key = await knex.raw<{ rows: { name: string }[] }>(
    `SELECT a.attname AS name
       FROM pg_index i
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = ?::regclass AND i.indisprimary
      ORDER BY k.n`,
    [table],
  );
  const columns = key.rows.map((r) => r.name);
  if (columns.length === 0) throw new Error(`${table} has no primary key to order its rows by`);
  return knex(table).select('*').orderBy(columns);
}
