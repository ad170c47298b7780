import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import { publicEventId } from '#packages/core/ids.js';
import { cursorPage, type CursorList, type CursorQuery } from './paging.js';
import { rowChangeProjection } from './batch.js';
import type { Projection } from './projection.js';
import { ownedRows } from './queries.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * An object whose history is kept, as its family declares it: its `object` name, the events that
 * carry it in `data.object`, and how a stored one is rendered today.
 */
export interface ObjectHistory {
  object: string;
  events: readonly string[];
  render(stored: unknown): unknown;
}

/** One entry of an object's history, shaped as the Event object of a webhook. */
export interface HistoryEvent<T> {
  id: string;
  object: 'event';
  type: string;
  created: number;
  livemode: boolean;
  /** Who caused it: `user:<id>` (a dashboard user), an API key's id, or the service (`system`, `scheduler`, …); null on rows kept before actors were. */
  actor: string | null;
  data: T;
}

interface Row {
  id: string;
  seq: string;
  type: string;
  created_at: Date;
  environment: string;
  actor: string | null;
  object_kind: string;
  object: unknown;
}

const TABLE = 'read.object_events';

/**
 * read.object_events: every event that changed an object whose family keeps its history (payment
 * intents, payouts: their webhook events and updates), with the object as that event left it;
 * what GET /api/v1/payment-intents/{id}/events and GET /api/v1/payouts/{id}/events list. One
 * history for every object that has one, whatever its family.
 */
export function objectEventsProjection(histories: readonly ObjectHistory[]): Projection {
  const kept = new Set(histories.map((h) => h.object));
  return {
    name: 'object_events',
    tables: [TABLE],
    migrations: [
      // The first two made the payment intents' history, which this read model grew from.
      {
        name: 'payment_intent_events/001-create',
        up: (knex) =>
          knex.raw(`CREATE TABLE read.payment_intent_events (
            id text PRIMARY KEY,
            seq text NOT NULL,
            payment_intent text NOT NULL,
            merchant_id text NOT NULL,
            environment text NOT NULL,
            type text NOT NULL,
            created_at timestamptz NOT NULL,
            object json NOT NULL
          );
          CREATE INDEX payment_intent_events_history ON read.payment_intent_events (payment_intent, seq)`),
      },
      {
        name: 'payment_intent_events/002-actor',
        up: (knex) => knex.raw('ALTER TABLE read.payment_intent_events ADD COLUMN actor text'),
      },
      {
        // Payouts' events too. Those recorded before are not in it (nor, before 002, the actors) until
        // `bin/sika projections rebuild object_events`.
        name: 'object_events/003-payouts',
        up: (knex) =>
          knex.raw(`ALTER TABLE read.payment_intent_events RENAME TO object_events;
          ALTER TABLE ${TABLE} RENAME COLUMN payment_intent TO object_id;
          ALTER TABLE ${TABLE} ADD COLUMN object_kind text NOT NULL DEFAULT 'payment_intent';
          ALTER TABLE ${TABLE} ALTER COLUMN object_kind DROP DEFAULT;
          ALTER INDEX read.payment_intent_events_history RENAME TO object_events_history;
          ALTER TABLE ${TABLE} RENAME CONSTRAINT payment_intent_events_pkey TO object_events_pkey`),
      },
    ],
    handles: histories.flatMap((h) => h.events),
    ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
      const data = event.data as { object?: { id: string; object: string } };
      const { merchant_id, environment } = event.metadata;
      if (!data.object || !merchant_id || !environment || !kept.has(data.object.object)) return [];
      const insert = {
        id: publicEventId(event.eventId),
        seq: event.position,
        object_id: data.object.id,
        object_kind: data.object.object,
        merchant_id,
        environment,
        type: event.type,
        created_at: new Date(event.metadata.occurred_at ?? event.recordedAt),
        actor: event.metadata.actor ?? null,
        object: data.object,
      };
      return [{ table: TABLE, insert }];
    }),
  };
}

/** This owner's events of one object of `history`, newest first, cursor-paged by event id, each rendered by its family. */
export function listObjectEvents(knex: Knex, owner: Owner, history: ObjectHistory, objectId: string, cursor: CursorQuery, url: string): Promise<CursorList<HistoryEvent<unknown>>> {
  const rows = ownedRows(knex, TABLE, owner, { object_id: objectId }).select('id', 'seq', 'type', 'created_at', 'environment', 'actor', 'object_kind', 'object');
  const toEvent = (row: Row): HistoryEvent<unknown> => ({ id: row.id, object: 'event', type: row.type, created: unixSeconds(row.created_at), livemode: row.environment === 'live', actor: row.actor, data: history.render(row.object) });
  return cursorPage<Row, HistoryEvent<unknown>>(rows, cursor, url, 'id', toEvent);
}
