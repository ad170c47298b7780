import type { Knex } from 'knex';
import { unixSeconds } from '../packages/core/clock.js';
import { publicEventId } from '../packages/core/ids.js';
import type { Owner } from '../packages/domain/audit.js';
import { PAYMENT_INTENT_OBJECT_EVENTS, type PaymentIntentEvent, type PaymentIntentObject } from '../packages/domain/payment-intent/events.js';
import { cursorPage, type CursorList, type CursorQuery } from './paging.js';
import { renderPaymentIntent } from './payment-intents.js';
import { rowChangeProjection } from './batch.js';
import type { Projection } from './projection.js';
import { ownedRows } from './queries.js';

/** One entry of an intent's history, shaped as the Event object of a webhook. */
export interface PaymentIntentHistoryEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  livemode: boolean;
  /** Who caused it: `user:<id>` (a dashboard user), an API key's id, or the service (`system`, `scheduler`, …); null on rows kept before actors were. */
  actor: string | null;
  data: PaymentIntentObject;
}

interface Row {
  id: string;
  seq: string;
  type: string;
  created_at: Date;
  environment: string;
  actor: string | null;
  object: PaymentIntentObject;
}

/**
 * read.payment_intent_events: every event that changed a payment intent (its webhook events and
 * updates), with the intent as that event left it; what GET /api/v1/payment-intents/{id}/events lists.
 */
export const paymentIntentEventsProjection: Projection = {
  name: 'payment_intent_events',
  tables: ['read.payment_intent_events'],
  migrations: [
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
      // Who caused each event (its metadata's actor). Rows kept before have none until `bin/sika projections rebuild payment_intent_events`.
      name: 'payment_intent_events/002-actor',
      up: (knex) => knex.raw('ALTER TABLE read.payment_intent_events ADD COLUMN actor text'),
    },
  ],
  handles: PAYMENT_INTENT_OBJECT_EVENTS,
  ...rowChangeProjection({ 'read.payment_intent_events': ['id'] }, (event) => {
    const e = event as unknown as PaymentIntentEvent;
    const { merchant_id, environment } = event.metadata;
    if (!('object' in e.data) || !merchant_id || !environment) return [];
    const insert = {
      id: publicEventId(event.eventId),
      seq: event.position,
      payment_intent: e.data.object.id,
      merchant_id,
      environment,
      type: event.type,
      created_at: new Date(event.metadata.occurred_at ?? event.recordedAt),
      actor: event.metadata.actor ?? null,
      object: e.data.object,
    };
    return [{ table: 'read.payment_intent_events', insert }];
  }),
};

function toEvent(row: Row): PaymentIntentHistoryEvent {
  return { id: row.id, object: 'event', type: row.type, created: unixSeconds(row.created_at), livemode: row.environment === 'live', actor: row.actor, data: renderPaymentIntent(row.object) };
}

/** This owner's events of one payment intent, newest first, cursor-paged by event id. */
export function listPaymentIntentEvents(knex: Knex, owner: Owner, paymentIntentId: string, cursor: CursorQuery, url: string): Promise<CursorList<PaymentIntentHistoryEvent>> {
  const rows = ownedRows(knex, 'read.payment_intent_events', owner, { payment_intent: paymentIntentId }).select('id', 'seq', 'type', 'created_at', 'environment', 'actor', 'object');
  return cursorPage<Row, PaymentIntentHistoryEvent>(rows, cursor, url, 'id', toEvent);
}
