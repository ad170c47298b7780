import type { Knex } from 'knex';
import type { Migration } from '#packages/core/migration.js';
import type { SelfCheckpointedSpec } from '#packages/bus/consumer.js';
import { eventHash, extendGlobalChain, GENESIS_HASH } from './hash-chain.js';
import type { EventStore, RecordedEvent } from './port.js';

/**
 * The global chain (docs/audit.md): the events' hashes folded in commit order by a sealer that
 * tails the log, and stored at checkpoints. Appends never wait for it, so the hot path stays one
 * SHA-256 per event; a change to sealed history shows as a checkpoint that no longer matches.
 */

/** A checkpoint every this many events, plus the head after every batch. */
const CHECKPOINT_EVERY = 1000;

const HEAD = 'audit.chain_head';
const CHECKPOINTS = 'audit.chain_checkpoints';
const SEALER = 'chain_sealer';

export const auditChainMigrations: readonly Migration[] = [
  {
    name: 'audit/001-chain',
    up: (knex) =>
      knex.raw(`CREATE SCHEMA IF NOT EXISTS audit;
        CREATE TABLE audit.chain_head (
          name text PRIMARY KEY,
          position text,
          updated_at timestamptz NOT NULL,
          events bigint NOT NULL DEFAULT 0,
          chain_hash text NOT NULL DEFAULT '${GENESIS_HASH}'
        );
        CREATE TABLE audit.chain_checkpoints (
          events bigint PRIMARY KEY,
          position text NOT NULL,
          chain_hash text NOT NULL,
          sealed_at timestamptz NOT NULL DEFAULT now()
        )`),
  },
];

interface Head {
  position: string | null;
  events: number;
  chain: string;
}

/**
 * The sealer: a checkpointed reader of the log whose checkpoint row is also the chain's head. A
 * batch is a part of one statement (docs/performance.md steps 28–29), in the consumer group's
 * claim or alone: the head moved from where this sealer left it (position, count and chain hash
 * compared, so a head changed behind its back is read again, never overwritten) to the batch's
 * end, with the checkpoints the batch crossed; the first batch inserts the head. The head it left
 * is remembered, so a batch reads nothing first, but after a start or a head that moved.
 */
export function chainSealer(every = CHECKPOINT_EVERY): SelfCheckpointedSpec {
  let known: Head | null = null;
  return {
    name: SEALER,
    checkpointTable: HEAD,
    async claimPart(knex, expected, events, prefix) {
      if (known?.position !== expected) known = await readHead(knex);
      if (known.position !== expected) return null;
      const from = known;
      let count = from.events;
      let chain = from.chain;
      const checkpoints: { events: number; position: string; chain_hash: string }[] = [];
      for (const e of events) {
        chain = extendGlobalChain(chain, e.hash);
        count += 1;
        if (count % every === 0) checkpoints.push({ events: count, position: e.position, chain_hash: chain });
      }
      const position = events[events.length - 1]!.position;
      known = null; // unknown until the statement says
      const [moved, first] = [`${prefix}moved`, `${prefix}first`];
      return {
        ctes: `${moved} AS (
           UPDATE ${HEAD} SET position = ?, events = ?, chain_hash = ?, updated_at = now()
           WHERE name = ? AND position IS NOT DISTINCT FROM ? AND events = ? AND chain_hash = ?
           RETURNING name
         ), ${first} AS (
           INSERT INTO ${HEAD} (name, position, updated_at, events, chain_hash)
           SELECT ?, ?, now(), ?, ? WHERE CAST(? AS text) IS NULL AND NOT EXISTS (SELECT 1 FROM ${moved})
           ON CONFLICT (name) DO NOTHING
           RETURNING name
         ), ${prefix}sealed AS (
           INSERT INTO ${CHECKPOINTS} (events, position, chain_hash)
           SELECT c.events, c.position, c.chain_hash FROM json_to_recordset(?::json) AS c(events bigint, position text, chain_hash text)
           WHERE EXISTS (SELECT 1 FROM ${moved} UNION ALL SELECT 1 FROM ${first})
           ON CONFLICT (events) DO NOTHING
         )`,
        bindings: [position, count, chain, SEALER, expected, from.events, from.chain, SEALER, position, count, chain, expected, JSON.stringify(checkpoints)],
        moved: `EXISTS (SELECT 1 FROM ${moved} UNION ALL SELECT 1 FROM ${first})`,
        settle(sealed) {
          known = sealed ? { position, events: count, chain } : null;
        },
      };
    },
  };
}

/** The head as stored (the genesis when there is none yet). */
async function readHead(knex: Knex): Promise<Head> {
  const row = await knex(HEAD).where({ name: SEALER }).first<{ position: string | null; events: string; chain_hash: string } | undefined>('position', 'events', 'chain_hash');
  return row ? { position: row.position, events: Number(row.events), chain: row.chain_hash } : { position: null, events: 0, chain: GENESIS_HASH };
}

/** Where the chains first stop matching: the event (none when events past the end were removed), and why. */
export interface Discrepancy {
  position: string;
  event: { streamId: string; version: number; eventId: string } | null;
  reason: string;
}

export interface VerifyReport {
  events: number;
  streams: number;
  /** Sealed checkpoints (and the head) compared against the recomputed global chain. */
  checkpoints: number;
  firstBad: Discrepancy | null;
}

export interface VerifyOptions {
  /** Only the chains of this merchant's streams; the global chain, which spans every merchant, is not checked. */
  merchantId?: string;
  /**
   * Check the events after this position instead of the whole log: from the last sealed checkpoint
   * at or before it, with the global chain, or when there is none, from the position itself, with
   * the streams' chains only.
   */
  from?: string;
}

interface Seal {
  events: number;
  position: string;
  chainHash: string;
}

async function seals(knex: Knex): Promise<Seal[]> {
  const rows = await knex.raw<{ rows: { events: string; position: string; chain_hash: string }[] }>(
    `SELECT events, position, chain_hash FROM ${CHECKPOINTS}
     UNION SELECT events, position, chain_hash FROM ${HEAD} WHERE name = ? AND position IS NOT NULL
     ORDER BY events`,
    [SEALER],
  );
  return rows.rows.map((r) => ({ events: Number(r.events), position: r.position, chainHash: r.chain_hash }));
}

/**
 * Recomputes the chains from the log: each stream's (versions consecutive from 0, each hash over
 * the event and the one before) and the global one against every sealed checkpoint. Stops at the
 * first event that does not match.
 */
export async function verifyLog(store: EventStore, knex: Knex, options: VerifyOptions = {}): Promise<VerifyReport> {
  const sealed = await seals(knex);
  const start = options.from === undefined ? undefined : [...sealed].reverse().find((s) => s.position <= options.from!);
  // The global chain needs a sealed starting point: the log's beginning, or a checkpoint before `from`.
  const checkGlobal = options.merchantId === undefined && (options.from === undefined || start !== undefined);
  let after = start?.position ?? options.from ?? null;
  let count = start?.events ?? 0;
  let chain = start?.chainHash ?? GENESIS_HASH;
  const pending = checkGlobal ? sealed.filter((s) => s.events > count) : [];
  const last = new Map<string, { version: number; hash: string }>();
  const report: VerifyReport = { events: 0, streams: 0, checkpoints: 0, firstBad: null };
  const bad = (e: RecordedEvent, reason: string): VerifyReport => ({
    ...report,
    streams: last.size,
    firstBad: { position: e.position, event: { streamId: e.streamId, version: e.version, eventId: e.eventId }, reason },
  });

  for (;;) {
    // The rows as stored now: a copy this process read earlier would hide a change made since.
    const batch = await store.readAll(after, 500, { stored: true });
    if (batch.length === 0) break;
    for (const e of batch) {
      after = e.position;
      if (checkGlobal) {
        chain = extendGlobalChain(chain, e.hash);
        count += 1;
        const seal = pending[0];
        if (seal && seal.events === count) {
          pending.shift();
          if (seal.position !== e.position || seal.chainHash !== chain) {
            return bad(e, `the global chain does not match its checkpoint at event #${count}: an event up to here was changed, removed or inserted since the checkpoint before`);
          }
          report.checkpoints += 1;
        }
      }
      if (options.merchantId !== undefined && e.metadata.merchant_id !== options.merchantId) continue;
      report.events += 1;
      let previous = last.get(e.streamId);
      if (!previous && e.version > 0 && options.from !== undefined) {
        // Verifying from a position: the stream's earlier events are taken as they are.
        const [before] = await store.readStream(e.streamId, { fromVersion: e.version - 1 });
        if (before && before.version === e.version - 1) previous = { version: before.version, hash: before.hash };
      }
      const expected = previous ? previous.version + 1 : 0;
      if (e.version !== expected) return bad(e, `${e.streamId} should continue at version ${expected} but the next event is version ${e.version}: events are missing`);
      if (e.hash !== eventHash(previous?.hash ?? GENESIS_HASH, e)) {
        return bad(e, `the stored hash does not match the event's content and the hash of the event before it in ${e.streamId}`);
      }
      last.set(e.streamId, { version: e.version, hash: e.hash });
    }
  }
  const missing = pending[0];
  if (missing) {
    return {
      ...report,
      streams: last.size,
      firstBad: { position: missing.position, event: null, reason: `the log holds ${count} events but was sealed at ${missing.events}: events were removed` },
    };
  }
  return { ...report, streams: last.size };
}
