import type { Knex } from 'knex';
import { chainHashes, GENESIS_HASH } from '../hash-chain.js';

/**
 * Event store tables, modelled on Emmett's PostgreSQL store. `transaction_id` is the writer's
 * xid8: readers of the global log only take rows below the oldest running transaction and order by
 * (transaction_id, global_position), so an event that commits late with a lower position is never skipped.
 */
export async function createEventStoreSchema(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS streams (
      stream_id text PRIMARY KEY,
      version bigint NOT NULL
    );
    CREATE TABLE IF NOT EXISTS events (
      global_position bigserial PRIMARY KEY,
      stream_id text NOT NULL,
      version bigint NOT NULL,
      event_id uuid NOT NULL UNIQUE,
      type text NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      recorded_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (stream_id, version)
    );
    CREATE INDEX IF NOT EXISTS events_commit_order ON events (transaction_id, global_position);
  `);
}

/**
 * Adds each event's chain hash (docs/audit.md) and computes it for the events already written,
 * stream by stream, so the chains start at each stream's first event.
 */
export async function addEventHashes(knex: Knex | Knex.Transaction): Promise<void> {
  await knex.raw('ALTER TABLE events ADD COLUMN IF NOT EXISTS hash text');
  let after: { streamId: string; version: number } | null = null;
  let previous = GENESIS_HASH;
  for (;;) {
    const res: { rows: { stream_id: string; version: string; event_id: string; type: string; data: unknown; metadata: Record<string, unknown> }[] } = await knex.raw(
      `SELECT stream_id, version, event_id, type, data, metadata FROM events
       WHERE ${after ? '(stream_id, version) > (?, ?)' : 'TRUE'} ORDER BY stream_id, version LIMIT 1000`,
      after ? [after.streamId, after.version] : [],
    );
    if (res.rows.length === 0) break;
    const hashes: string[] = [];
    for (const row of res.rows) {
      const version = Number(row.version);
      if (version === 0) previous = GENESIS_HASH;
      [previous] = chainHashes(previous, [{ streamId: row.stream_id, version, eventId: row.event_id, type: row.type, data: row.data, metadata: row.metadata }]) as [string];
      hashes.push(previous);
    }
    await knex.raw('UPDATE events e SET hash = u.hash FROM unnest(?::uuid[], ?::text[]) AS u(event_id, hash) WHERE e.event_id = u.event_id', [res.rows.map((r) => r.event_id), hashes]);
    const last = res.rows[res.rows.length - 1]!;
    after = { streamId: last.stream_id, version: Number(last.version) };
  }
  await knex.raw('ALTER TABLE events ALTER COLUMN hash SET NOT NULL');
}
