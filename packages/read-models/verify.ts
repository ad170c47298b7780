import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '#packages/core/database.js';
import type { Projection } from './projection.js';
import { applyEvents, readProjectionCheckpoint, type TransactionalReader } from './runner.js';

/** One row that differs between a live read model and its rebuild from the log; null where a side has none. */
export interface RowDifference {
  table: string;
  key: Record<string, unknown>;
  live: Record<string, unknown> | null;
  rebuilt: Record<string, unknown> | null;
}

const BATCH = 1000;

/**
 * The shadow rebuild's transaction as the projections get it: SQL text that names the read schema
 * itself would escape the renaming and write the live tables, so it is refused (name tables with
 * the query builder or `??` bindings instead).
 */
function shadowed(trx: Knex.Transaction): Knex.Transaction {
  const raw = (sql: string, ...rest: unknown[]) => {
    if (/\bread\./.test(sql)) throw new Error(`A projection's raw SQL names the read schema in its text, which a shadow rebuild cannot rename: ${sql}`);
    return (trx.raw as (...args: unknown[]) => unknown)(sql, ...rest);
  };
  return new Proxy(trx, { get: (target, prop) => (prop === 'raw' ? raw : Reflect.get(target, prop, target)) });
}

async function primaryKey(db: Knex | Knex.Transaction, table: string): Promise<string[]> {
  const res = await db.raw<{ rows: { attname: string }[] }>(
    `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
     WHERE i.indrelid = ?::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
    [table],
  );
  return res.rows.map((r) => r.attname);
}

/** Each row's key (the primary key, else the whole row) and a digest of the whole row. */
async function digests(db: Knex | Knex.Transaction, table: string, pk: string[]): Promise<Map<string, string>> {
  const key = pk.length > 0 ? `jsonb_build_array(${pk.map((c) => `r->'${c}'`).join(', ')})::text` : 'r::text';
  const res = await db.raw<{ rows: { k: string; d: string }[] }>(`SELECT ${key} AS k, md5(r::text) AS d FROM (SELECT to_jsonb(t) AS r FROM ${table} t) x`);
  const out = new Map<string, string>();
  for (const row of res.rows) out.set(row.k, row.d);
  return out;
}

async function rowByKey(db: Knex | Knex.Transaction, table: string, pk: string[], key: string): Promise<Record<string, unknown> | null> {
  const match = pk.length > 0 ? `jsonb_build_array(${pk.map((c) => `r->'${c}'`).join(', ')})::text = ?` : 'r::text = ?';
  const res = await db.raw<{ rows: { r: Record<string, unknown> }[] }>(`SELECT r FROM (SELECT to_jsonb(t) AS r FROM ${table} t) x WHERE ${match} LIMIT 1`, [key]);
  return res.rows[0]?.r ?? null;
}

/**
 * Rebuilds every read model from the log into a shadow schema and compares the `chosen` ones with
 * the live tables, row by row. The log and the live tables are read in one read-only snapshot (the
 * inline projections commit with their events, so that snapshot is consistent; a projection that
 * follows the log is rebuilt as far as its checkpoint in that snapshot, where it stands); the shadow is
 * written in short transactions, so appends, reads and the bus's commit-order fence never wait on it.
 * The shadow schema is dropped at the end.
 */
export async function verifyProjections(knex: Knex, url: string, all: readonly Projection[], chosen: readonly Projection[], read: TransactionalReader, maxDifferences = 100): Promise<RowDifference[]> {
  const shadow = `shadow_${randomBytes(6).toString('hex')}`;
  const shadowKnex = createKnex(url, 2, { schemaAliases: { read: shadow } });
  const snapshot = await knex.transaction({ isolationLevel: 'repeatable read', readOnly: true });
  try {
    await shadowKnex.raw(`CREATE SCHEMA ${shadow}`);
    for (const table of all.flatMap((p) => p.tables)) await shadowKnex.raw(`CREATE TABLE ${shadow}.${table.split('.')[1]} (LIKE ${table} INCLUDING ALL)`);
    const reachedBy = new Map<Projection, string | null>();
    for (const p of all.filter((p) => p.followsLog)) reachedBy.set(p, await readProjectionCheckpoint(snapshot, p.name));
    const inline = all.filter((p) => !p.followsLog);
    let after: string | null = null;
    for (;;) {
      const batch = await read(snapshot, after, BATCH);
      if (batch.length === 0) break;
      await shadowKnex.transaction(async (trx) => {
        await applyEvents(shadowed(trx), inline, batch);
        for (const [p, reached] of reachedBy)
          await applyEvents(
            shadowed(trx),
            [p],
            batch.filter((e) => reached !== null && e.position <= reached),
          );
      });
      after = batch[batch.length - 1]!.position;
    }
    const differences: RowDifference[] = [];
    for (const table of chosen.flatMap((p) => p.tables)) {
      const rebuiltTable = `${shadow}.${table.split('.')[1]}`;
      const pk = await primaryKey(snapshot, table);
      const [live, rebuilt] = [await digests(snapshot, table, pk), await digests(shadowKnex, rebuiltTable, pk)];
      const keys = new Set([...live.keys(), ...rebuilt.keys()]);
      for (const key of [...keys].sort()) {
        if (live.get(key) === rebuilt.get(key)) continue;
        if (differences.length === maxDifferences) return differences;
        const parsed = JSON.parse(pk.length > 0 ? key : '[]') as unknown[];
        differences.push({
          table,
          key: Object.fromEntries(pk.map((c, i) => [c, parsed[i]])),
          live: live.has(key) ? await rowByKey(snapshot, table, pk, key) : null,
          rebuilt: rebuilt.has(key) ? await rowByKey(shadowKnex, rebuiltTable, pk, key) : null,
        });
      }
    }
    return differences;
  } finally {
    await snapshot.commit().catch(() => undefined);
    await shadowKnex.raw(`DROP SCHEMA IF EXISTS ${shadow} CASCADE`).catch(() => undefined);
    await shadowKnex.destroy();
  }
}
