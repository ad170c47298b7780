import type { Knex } from 'knex';
import type { Owner } from '../domain/audit.js';
import { cursorPage, whereCreated, type CreatedRange, type CursorList, type CursorQuery } from '../../projections/paging.js';
import { RETENTION_MS } from './dispatcher.js';

/** An event as its webhook deliveries carry it: `id`, `object`, `type`, `created`, `livemode`, `data`. */
export type PublicEvent = Record<string, unknown> & { id: string; type: string };

export interface EventFilters {
  /** Only these types (already expanded from `*` and `family.*`); none: every type. */
  types?: readonly string[];
  created?: CreatedRange;
}

interface EventRow {
  id: string;
  seq: string;
  payload: string;
}

/** The owner's stored public events of the retention window (30 days) matching the filters; never a test event. */
function eventsOf(knex: Knex, owner: Owner, filters: EventFilters, now: Date): Knex.QueryBuilder {
  const q = knex('webhook_events')
    .select('id', 'seq', 'payload')
    .where({ merchant_id: owner.merchantId, environment: owner.environment })
    .whereNull('test_endpoint_id')
    .andWhere('created_at', '>=', new Date(now.getTime() - RETENTION_MS));
  if (filters.types) q.whereIn('type', filters.types);
  return whereCreated(q, 'created_at', filters.created ?? {});
}

/** The payload stored when the event was dispatched, exactly: what a webhook of it carried. */
const parse = (row: EventRow): PublicEvent => JSON.parse(row.payload) as PublicEvent;

/** Newest first, in the order events were stored (the log's); `ending_before` pages toward newer ones. */
export function listEvents(knex: Knex, owner: Owner, query: CursorQuery, filters: EventFilters, now: Date, url: string): Promise<CursorList<PublicEvent>> {
  return cursorPage<EventRow, PublicEvent>(eventsOf(knex, owner, filters, now), query, url, 'id', parse);
}

export async function findEvent(knex: Knex, owner: Owner, id: string, now: Date): Promise<PublicEvent | undefined> {
  const row = await eventsOf(knex, owner, {}, now).andWhere('id', id).first<EventRow | undefined>();
  return row && parse(row);
}
