import type { Knex } from 'knex';
import { Refusal } from '#packages/core/refusal.js';
import { canReadEventType, readScopeOfEventType } from '#packages/families/accounts/index.js';
import type { PublicEventCatalogue } from '#packages/core/public-events.js';
import { cursorPage, whereCreated, type CreatedRange, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import { RETENTION_MS } from './replays.js';
import type { Owner } from '#packages/core/owner.js';

/** An event as its webhook deliveries carry it: `id`, `object`, `type`, `created`, `livemode`, `data`. */
export type PublicEvent = Record<string, unknown> & { id: string; type: string };

export interface EventFilters {
  /** Only these types (already expanded from `*` and `family.*`); none: every type. */
  types?: readonly string[];
  created?: CreatedRange;
}

/**
 * The types a credential holding `scopes` may be shown (docs/accounts.md, "Events and scopes") among
 * those its `type` filters name (`*`, a type or `family.*`; none: every type); undefined when
 * that is every public type. A filter naming no type is 400 IKW-VAL-001; one naming a type the
 * credential cannot read, 403 IKW-AUT-004 with the scope it needs, so that a filter never answers
 * an empty list for a reason the caller cannot see. `*` takes the readable types.
 */
export function readableTypes(catalogue: PublicEventCatalogue, scopes: readonly string[], filters?: readonly string[]): string[] | undefined {
  if (filters === undefined) {
    const readable = catalogue.names().filter((t) => canReadEventType(scopes, t));
    return readable.length === catalogue.types.length ? undefined : readable;
  }
  const types = new Set<string>();
  for (const filter of filters) {
    const matching = catalogue.matching(filter);
    if (matching.length === 0) throw new Refusal('IKW-VAL-001', `type ${filter} names no event type (docs/events.md lists them)`, 'type');
    const unreadable = filter === '*' ? undefined : matching.find((t) => !canReadEventType(scopes, t));
    if (unreadable !== undefined) throw new Refusal('IKW-AUT-004', `This credential cannot read ${filter} events: they need ${readScopeOfEventType(unreadable)}`, 'type');
    for (const t of matching) if (canReadEventType(scopes, t)) types.add(t);
  }
  return [...types];
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

/** The event, if it is the owner's, of the retention window and one of `types` (all when none). */
export async function findEvent(knex: Knex, owner: Owner, id: string, now: Date, types?: readonly string[]): Promise<PublicEvent | undefined> {
  const row = await eventsOf(knex, owner, types ? { types } : {}, now)
    .andWhere('id', id)
    .first<EventRow | undefined>();
  return row && parse(row);
}
