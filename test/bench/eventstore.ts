/**
 * Event store appends against a peer, Emmett's PostgreSQL event store, and against the baseline of
 * single-row INSERTs (baseline.ts), all three on the same server in the same alternating slices.
 */
import { randomBytes } from 'node:crypto';
import { getPostgreSQLEventStore, type PostgresEventStore as EmmettStore } from '@event-driven-io/emmett-postgresql';
import { STREAM_DOES_NOT_EXIST, type ExpectedStreamVersion } from '@event-driven-io/emmett';
import type { Knex } from 'knex';
import pg from 'pg';
import type { ExpectedVersion } from '#packages/eventstore/port.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { BASELINE_PAYLOAD, BASELINE_TABLE, baselineInserters, createBaselineTable } from './baseline.js';
import { compareInSlices, fixed, progress, round, table, type LoadResult, type Operation } from './common.js';

export const WRITER_LEVELS = [1, 8, 64] as const;
/** Above the largest writer count, so 64 writers never wait for a connection. */
export const STORE_POOL_MAX = 70;

export interface WriteLevel {
  writers: number;
  appends: LoadResult;
  /** The peer: Emmett's PostgreSQL event store, the same event to a stream of each writer's own. */
  peer: LoadResult;
  inserts: LoadResult;
  /** appends/s ÷ baseline rows/s */
  ratio: number;
  /** appends/s ÷ the peer's appends/s */
  peerRatio: number;
}

/** What every writer appends: one payment-sized event. */
const appendedEvent = () => ({ type: 'bench.appended', data: BASELINE_PAYLOAD, metadata: { actor: 'bench', occurred_at: new Date().toISOString() } });

/** A writer of its own stream: appends one event at a time with the version the last append answered. */
function streamWriter<V>(first: V, append: (expected: V) => Promise<V>): Operation {
  let expected = first;
  return async () => {
    expected = await append(expected);
  };
}

const appendWriter = (store: PostgresEventStore, streamId: string): Operation => streamWriter<ExpectedVersion>('no_stream', async (expectedVersion) => (await store.append(streamId, [appendedEvent()], { expectedVersion })).nextVersion);

const peerWriter = (store: EmmettStore, streamName: string): Operation =>
  streamWriter<ExpectedStreamVersion<bigint>>(STREAM_DOES_NOT_EXIST, async (expectedStreamVersion) => (await store.appendToStream(streamName, [appendedEvent()], { expectedStreamVersion })).nextExpectedStreamVersion);

/** The type OIDs whose parsers Emmett sets for every node-postgres client of the process: int8, jsonb, json. */
const PEER_TYPES = [20, 3802, 114] as const;

/**
 * Emmett's store on a pool as large as ours, so neither waits for a connection. Emmett (its dumbo
 * layer) sets node-postgres' global type parsers when it opens (int8 as BigInt, its own JSON); that
 * would change what every other pool of this process reads, Sika's store included. So its parsers
 * go to its own pool's `types` and the process's parsers are put back.
 */
function openPeer(url: string): { store: EmmettStore; close(): Promise<void> } {
  const ours = new Map(PEER_TYPES.map((oid) => [oid, pg.types.getTypeParser(oid, 'text')]));
  const theirs = new Map<number, (value: string) => unknown>();
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => (format !== 'binary' && theirs.get(oid)) || pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, max: STORE_POOL_MAX, types });
  const store = getPostgreSQLEventStore(url, { connectionOptions: { pool } });
  for (const [oid, parser] of ours) {
    theirs.set(oid, pg.types.getTypeParser(oid, 'text'));
    pg.types.setTypeParser(oid, 'text', parser);
  }
  return {
    store,
    close: async () => {
      await store.close();
      await pool.end().catch(() => undefined); // the store may have ended the pool it was given
    },
  };
}

export async function benchWrites(knex: Knex, url: string): Promise<WriteLevel[]> {
  await createBaselineTable(url);
  const store = new PostgresEventStore(knex);
  const peer = openPeer(url);
  await peer.store.schema.migrate();
  const runId = randomBytes(4).toString('hex');
  const levels: WriteLevel[] = [];
  try {
    for (const writers of WRITER_LEVELS) {
      progress(`  ${writers} writer(s)…`);
      const appenders = Array.from({ length: writers }, (_, i) => appendWriter(store, `bench-${runId}-w${writers}-${i}`));
      const peerWriters = Array.from({ length: writers }, (_, i) => peerWriter(peer.store, `bench-${runId}-w${writers}-${i}`));
      const inserters = await baselineInserters(url, writers);
      try {
        const [appends, peerAppends, inserts] = (await compareInSlices(appenders, peerWriters, inserters.operations)) as [LoadResult, LoadResult, LoadResult];
        levels.push({ writers, appends, peer: peerAppends, inserts, ratio: appends.perSecond / inserts.perSecond, peerRatio: appends.perSecond / peerAppends.perSecond });
      } finally {
        await inserters.close();
      }
    }
  } finally {
    await store.close();
    await peer.close();
    await knex.raw(`DROP TABLE IF EXISTS ${BASELINE_TABLE}`);
  }
  return levels;
}

export function writeTable(levels: WriteLevel[]): string {
  return table(
    ['writers', 'Sika appends/s', 'p50 ms', 'p99 ms', 'Emmett appends/s', 'p50 ms', 'p99 ms', 'INSERTs/s', 'p50 ms', 'p99 ms', 'Sika ÷ Emmett', 'Sika ÷ INSERTs'],
    levels.map((l) => [
      String(l.writers),
      fixed(l.appends.perSecond, 0),
      fixed(l.appends.p50Ms, 2),
      fixed(l.appends.p99Ms, 2),
      fixed(l.peer.perSecond, 0),
      fixed(l.peer.p50Ms, 2),
      fixed(l.peer.p99Ms, 2),
      fixed(l.inserts.perSecond, 0),
      fixed(l.inserts.p50Ms, 2),
      fixed(l.inserts.p99Ms, 2),
      fixed(l.peerRatio, 2),
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
    peer_appends_per_s: round(l.peer.perSecond, 1),
    peer_p50_ms: round(l.peer.p50Ms, 3),
    peer_p99_ms: round(l.peer.p99Ms, 3),
    baseline_rows_per_s: round(l.inserts.perSecond, 1),
    baseline_p50_ms: round(l.inserts.p50Ms, 3),
    baseline_p99_ms: round(l.inserts.p99Ms, 3),
    ratio: round(l.ratio, 3),
    peer_ratio: round(l.peerRatio, 3),
  }));
}
