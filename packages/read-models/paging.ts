import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';

/** The request-query schemas below are plain JSON Schema objects (what ajv validates with). */
type JsonSchema = Record<string, unknown>;

/** Query schema of every cursor-paged /api/v1 list (docs/architecture.md, "HTTP conventions"). */
export const cursorListQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'How many objects a page holds, 1 to 100' },
    starting_after: { type: 'string', minLength: 1, maxLength: 255, description: 'An object id: the page starts after it (the next page: the last id of this one)' },
    ending_before: { type: 'string', minLength: 1, maxLength: 255, description: 'An object id: the page ends before it (the previous page: the first id of this one)' },
  },
  additionalProperties: false,
} satisfies JsonSchema;

export interface CursorQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
}

export interface CursorList<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/**
 * Newest first, over a table with a monotonically increasing `seq` column. `base` must already be
 * narrowed to the caller's merchant and environment, so a cursor of another merchant is "no such object".
 */
export async function cursorPage<Row extends { seq: string | number }, T>(base: Knex.QueryBuilder, query: CursorQuery, url: string, idColumn: string, render: (row: Row) => T): Promise<CursorList<T>> {
  if (query.starting_after && query.ending_before) {
    throw new ApiError('IKW-VAL-001', 'starting_after and ending_before cannot be used together', 'ending_before');
  }
  const cursorId = query.starting_after ?? query.ending_before;
  const q = base.clone();
  if (cursorId !== undefined) {
    const cursor = await base.clone().clearSelect().clearOrder().select('seq').where(idColumn, cursorId).first<{ seq: string } | undefined>();
    const param = query.starting_after ? 'starting_after' : 'ending_before';
    if (!cursor) throw new ApiError('IKW-VAL-001', `No such object: '${cursorId}'`, param);
    q.where('seq', query.starting_after ? '<' : '>', cursor.seq);
  }
  const backwards = query.ending_before !== undefined;
  const rows = (await q.orderBy('seq', backwards ? 'asc' : 'desc').limit(query.limit + 1)) as Row[];
  const has_more = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  if (backwards) page.reverse();
  return { object: 'list', data: page.map(render), has_more, url };
}

/** Bounds on `created`, inclusive or not, as the lists' `created[gt|gte|lt|lte]` give them. */
export interface CreatedRange {
  gt?: Date;
  gte?: Date;
  lt?: Date;
  lte?: Date;
}

/** Narrows `q` to rows whose `column` is within `range`. */
export function whereCreated(q: Knex.QueryBuilder, column: string | Knex.Raw, range: CreatedRange): Knex.QueryBuilder {
  // A column, or an expression (a time read from a stored object). The two calls are alike: each
  // narrows `column` to one of knex's two overloads, which a union matches neither of.
  const bound = (operator: string, at: Date) => (typeof column === 'string' ? q.where(column, operator, at) : q.where(column, operator, at));
  if (range.gt) bound('>', range.gt);
  if (range.gte) bound('>=', range.gte);
  if (range.lt) bound('<', range.lt);
  if (range.lte) bound('<=', range.lte);
  return q;
}

/** Query schema of page-based merchant lists (`/api/v1/merchant/*`). */
export const pageListQuery = {
  type: 'object',
  properties: {
    page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1, description: 'Which page, from 1' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'How many objects a page holds, 1 to 100' },
  },
  additionalProperties: false,
} satisfies JsonSchema;

export interface PageQuery {
  page: number;
  limit: number;
}

export interface PageList<T> {
  object: 'list';
  data: T[];
  page: number;
  limit: number;
  total: number;
  has_more: boolean;
}

/** Page-based list, newest first by `seq`. */
export async function pageOf<Row, T>(base: Knex.QueryBuilder, query: PageQuery, render: (row: Row) => T): Promise<PageList<T>> {
  const countRow = await base.clone().clearSelect().clearOrder().count<{ count: string }[]>('* as count');
  const total = Number(countRow[0]?.count ?? 0);
  const rows = (await base
    .clone()
    .orderBy('seq', 'desc')
    .offset((query.page - 1) * query.limit)
    .limit(query.limit)) as Row[];
  return { object: 'list', data: rows.map(render), page: query.page, limit: query.limit, total, has_more: query.page * query.limit < total };
}
