import type { Knex } from 'knex';

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
