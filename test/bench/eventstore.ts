/** Event store appends against the baseline of single-row INSERTs (baseline.ts) on the same server. */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { ExpectedVersion } from '../../packages/eventstore/port.js';
import { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
import { BASELINE_PAYLOAD, BASELINE_TABLE, baselineInserters, createBaselineTable } from './baseline.js';
import { compareInSlices, fixed, progress, round, table, type LoadResult, type Operation } from './common.js';

export const WRITER_LEVELS = [1, 8, 64] as const;
/** Above the largest writer count, so 64 writers never wait for a connection. */
export const STORE_POOL_MAX = 70;

export interface WriteLevel {
  writers: number;
  appends: LoadResult;
  inserts: LoadResult;
  /** appends/s ÷ baseline rows/s */
  ratio: number;
}

/** One writer of the store: its own stream, appended one event at a time with the version it knows. */
function appendWriter(store: PostgresEventStore, streamId: string): Operation {
  let expectedVersion: ExpectedVersion = 'no_stream';
  return async () => {
    const result = await store.append(
      streamId,
      [{ type: 'bench.appended', data: BASELINE_PAYLOAD, metadata: { actor: 'bench', occurred_at: new Date().toISOString() } }],
      { expectedVersion },
    );
    expectedVersion = result.nextVersion;
  };
}

export async function benchWrites(knex: Knex, url: string): Promise<WriteLevel[]> {
  await createBaselineTable(url);
  const store = new PostgresEventStore(knex);
  const runId = randomBytes(4).toString('hex');
  const levels: WriteLevel[] = [];
  try {
    for (const writers of WRITER_LEVELS) {
      progress(`  ${writers} writer(s)…`);
      const appenders = Array.from({ length: writers }, (_, i) => appendWriter(store, `bench-${runId}-w${writers}-${i}`));
      const inserters = await baselineInserters(url, writers);
      try {
        const [appends, inserts] = await compareInSlices(appenders, inserters.operations);
        levels.push({ writers, appends, inserts, ratio: appends.perSecond / inserts.perSecond });
      } finally {
        await inserters.close();
      }
    }
  } finally {
    await store.close(); // stops its coalesced NOTIFY timer before the pool goes away
    await knex.raw(`DROP TABLE IF EXISTS ${BASELINE_TABLE}`);
  }
  return levels;
}

export function writeTable(levels: WriteLevel[]): string {
  return table(
    ['writers', 'appends/s', 'p50 ms', 'p99 ms', 'INSERTs/s', 'p50 ms', 'p99 ms', 'appends ÷ INSERTs'],
    levels.map((l) => [
      String(l.writers),
      fixed(l.appends.perSecond, 0),
      fixed(l.appends.p50Ms, 2),
      fixed(l.appends.p99Ms, 2),
      fixed(l.inserts.perSecond, 0),
      fixed(l.inserts.p50Ms, 2),
      fixed(l.inserts.p99Ms, 2),
      fixed(l.ratio, 2),
    ]),
  );
}

export function writesJson(levels: WriteLevel[]) {
  return levels.map((l) => ({
    writers: l.writers,
    appends_per_s: round(l.appends.perSecond, 1),
    append_p50_ms: round(l.appends.p50Ms, 3),
    append_p99_ms: round(l.appends.p99Ms, 3),
    baseline_rows_per_s: round(l.inserts.perSecond, 1),
    baseline_p50_ms: round(l.inserts.p50Ms, 3),
    baseline_p99_ms: round(l.inserts.p99Ms, 3),
    ratio: round(l.ratio, 3),
  }));
}
