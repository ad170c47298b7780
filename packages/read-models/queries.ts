import type { Knex } from 'knex';
import { cursorPage, pageOf, type CursorList, type CursorQuery, type PageList, type PageQuery } from './paging.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * What the list and find functions of the read models share. Every query is scoped to one owner,
 * so that another merchant's or environment's object is simply not found.
 */

/** A list's filters, by column: the value to match; a filter left out or empty matches every row. */
export type Filters = Record<string, string | undefined>;

/** This owner's rows of a read model table that match the list filters given. */
export function ownedRows(knex: Knex, table: string, owner: Owner, filters: Filters = {}): Knex.QueryBuilder {
  const given = Object.entries(filters).filter(([, value]) => value !== undefined && value !== '');
  return knex(table).where({ merchant_id: owner.merchantId, environment: owner.environment, ...Object.fromEntries(given) });
}

/** How many resources an owner made, how many ended well or badly, and when it made the last (Unix seconds, null for none). */
export interface Activity {
  total: number;
  succeeded: number;
  failed: number;
  lastCreated: number | null;
}

/** The activity of this owner in a snapshot read model (packages/read-models/snapshot.ts) whose objects carry `created`. */
export async function snapshotActivity(knex: Knex, table: string, owner: Owner, statuses: { succeeded: string; failed: string }): Promise<Activity> {
  const row = (await ownedRows(knex, table, owner).first(
    knex.raw('count(*)::int AS total'),
    knex.raw('(count(*) FILTER (WHERE status = ?))::int AS succeeded', [statuses.succeeded]),
    knex.raw('(count(*) FILTER (WHERE status = ?))::int AS failed', [statuses.failed]),
    knex.raw("max((object->>'created')::bigint) AS last_created"),
  )) as { total: number; succeeded: number; failed: number; last_created: string | null };
  return { total: row.total, succeeded: row.succeeded, failed: row.failed, lastCreated: row.last_created === null ? null : Number(row.last_created) };
}

/*
 * Snapshot read models (packages/read-models/snapshot.ts) keep each resource as its latest event left it, in
 * an `object` column; `render` puts a stored object's fields in the documented order.
 */

/** This owner's object with this id, rendered. */
export async function findOwnedObject<T>(knex: Knex, table: string, owner: Owner, id: string, render: (stored: T) => T): Promise<T | undefined> {
  const row = await ownedRows(knex, table, owner).where({ id }).select('object').first<{ object: T } | undefined>();
  return row && render(row.object);
}

/** A page of the objects `query` selects (from ownedRows), newest first. */
export function pageOfObjects<T>(query: Knex.QueryBuilder, page: PageQuery, render: (stored: T) => T): Promise<PageList<T>> {
  return pageOf<{ object: T }, T>(query.select('object'), page, (row) => render(row.object));
}

/** The same, cursor-paged (`url` is the list's own, as the list object shows it). */
export function cursorPageOfObjects<T>(query: Knex.QueryBuilder, cursor: CursorQuery, url: string, render: (stored: T) => T): Promise<CursorList<T>> {
  return cursorPage<{ seq: string; object: T }, T>(query.select('object'), cursor, url, 'id', (row) => render(row.object));
}

/** How many rows an export reads at a time. */
const EXPORT_BATCH = 1000;

/**
 * Every row of `query` (narrowed to an owner, selecting `seq`) in `seq` order, read a thousand at a
 * time with `seq` as the cursor: an export streams them, holding one batch in memory and no
 * connection between batches.
 */
export async function* everyRowBySeq<Row extends { seq: string }>(query: Knex.QueryBuilder, order: 'asc' | 'desc'): AsyncGenerator<Row> {
  let last: string | null = null;
  for (;;) {
    const batch = query.clone().orderBy('seq', order).limit(EXPORT_BATCH);
    if (last !== null) batch.where('seq', order === 'asc' ? '>' : '<', last);
    const rows = (await batch) as Row[];
    yield* rows;
    if (rows.length < EXPORT_BATCH) return;
    last = rows[rows.length - 1]!.seq;
  }
}

/** Every object of `query`, newest first as the lists show them (everyRowBySeq). */
export async function* everyObjectNewestFirst<T>(query: Knex.QueryBuilder, render: (stored: T) => T): AsyncGenerator<T> {
  for await (const row of everyRowBySeq<{ seq: string; object: T }>(query.clone().select('seq', 'object'), 'desc')) yield render(row.object);
}
