import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** What a delivery can be (webhook_deliveries.status). */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

interface DeliveryRow {
  id: string;
  seq: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  environment: Environment;
  status: DeliveryStatus;
  attempts: number;
  replay_of: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

interface AttemptRow {
  attempt: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
  response_body: string | null;
}

/**
 * The owner's deliveries to one endpoint with their event's type (a subquery, so that the paging's
 * `seq` and `id` name the delivery's columns).
 */
function deliveriesOf(knex: Knex, owner: Owner, endpointId: string, status?: DeliveryStatus): Knex.QueryBuilder {
  const inner = knex('webhook_deliveries as d')
    .join('webhook_events as ev', 'ev.id', 'd.event_id')
    .select('d.id', 'd.seq', 'd.endpoint_id', 'd.event_id', 'ev.type as event_type', 'd.environment', 'd.status', 'd.attempts', 'd.replay_of', 'd.next_attempt_at', 'd.created_at')
    .where({ 'd.endpoint_id': endpointId, 'd.merchant_id': owner.merchantId, 'd.environment': owner.environment });
  if (status) inner.andWhere('d.status', status);
  return knex.from(inner.as('deliveries')).select('*');
}

/** A delivery as the API shows it (docs/webhooks.md, "Deliveries"). */
function deliveryObject(row: DeliveryRow) {
  return {
    id: row.id,
    object: 'webhook_delivery',
    webhook_endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempts,
    next_attempt_at: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    replay_of: row.replay_of,
    created: unixSeconds(row.created_at),
    livemode: row.environment === 'live',
  };
}

function attemptObject(row: AttemptRow) {
  return {
    attempt: row.attempt,
    started_at: row.started_at.toISOString(),
    duration_ms: row.duration_ms,
    response_status: row.response_status,
    error: row.error,
    response_body: row.response_body,
  };
}

export type WebhookDelivery = ReturnType<typeof deliveryObject>;
export type WebhookDeliveryWithAttempts = WebhookDelivery & { attempts: ReturnType<typeof attemptObject>[] };

/** An endpoint's deliveries, newest first (the order they were queued), optionally of one status. */
export function listDeliveries(knex: Knex, owner: Owner, endpointId: string, query: CursorQuery & { status?: DeliveryStatus }, url: string): Promise<CursorList<WebhookDelivery>> {
  return cursorPage<DeliveryRow, WebhookDelivery>(deliveriesOf(knex, owner, endpointId, query.status), query, url, 'id', deliveryObject);
}

/** One delivery of the endpoint with its attempts, first to last; undefined when the owner's endpoint has no such delivery. */
export async function findDelivery(knex: Knex, owner: Owner, endpointId: string, deliveryId: string): Promise<WebhookDeliveryWithAttempts | undefined> {
  const row = await deliveriesOf(knex, owner, endpointId).where('id', deliveryId).first<DeliveryRow | undefined>();
  if (!row) return undefined;
  const attempts = (await knex('webhook_attempts').where({ delivery_id: row.id }).orderBy('attempt')) as AttemptRow[];
  return { ...deliveryObject(row), attempts: attempts.map(attemptObject) };
}
