import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import type { ApplicationStatus } from '#packages/families/activation/index.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';

/**
 * A merchant as the operators' list shows it: read.merchants (the merchants family's read model)
 * with its application's status from read.activation_applications (the activation family's).
 */
export interface MerchantSummary {
  id: string;
  name: string;
  email: string | null;
  liveStatus: string;
  applicationStatus: ApplicationStatus;
  created: string;
}

export interface MerchantSearch {
  /** The merchant's id exactly, or words of its name or e-mail address (any case). */
  search?: string;
  liveStatus?: string;
  /** Where its activation application stands; `not_submitted` keeps the merchants that have none. */
  applicationStatus?: ApplicationStatus;
}

interface Row {
  id: string;
  name: string;
  email: string | null;
  live_status: string;
  application_status: ApplicationStatus;
  created_at: Date;
}

const render = (row: Row): MerchantSummary => ({
  id: row.id,
  name: row.name,
  email: row.email,
  liveStatus: row.live_status,
  applicationStatus: row.application_status,
  created: row.created_at.toISOString(),
});

/** A merchant that never submitted has no row in read.activation_applications: it is `not_submitted`. */
const APPLICATION_STATUS = "coalesce(a.status, 'not_submitted')";

/**
 * Every merchant of the platform (operators only: no owner narrows it), newest first, narrowed by
 * `filters`, cursor-paged by merchant id (ordered by creation, then id).
 */
export async function searchMerchants(knex: Knex, filters: MerchantSearch, cursor: CursorQuery, url: string): Promise<CursorList<MerchantSummary>> {
  if (cursor.starting_after && cursor.ending_before) throw new ApiError('IKW-VAL-001', 'starting_after and ending_before cannot be used together', 'ending_before');
  const q = knex({ m: 'read.merchants' })
    .leftJoin({ a: 'read.activation_applications' }, 'a.merchant_id', 'm.id')
    .select<Row[]>('m.id', 'm.name', 'm.email', 'm.live_status', 'm.created_at', knex.raw(`${APPLICATION_STATUS} AS application_status`));
  if (filters.liveStatus !== undefined) q.where('m.live_status', filters.liveStatus);
  if (filters.applicationStatus !== undefined) q.whereRaw(`${APPLICATION_STATUS} = ?`, [filters.applicationStatus]);
  const search = filters.search?.trim();
  if (search) {
    const words = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q.where((w) => {
      w.where('m.id', search).orWhereILike('m.name', words).orWhereILike('m.email', words);
    });
  }
  const cursorId = cursor.starting_after ?? cursor.ending_before;
  const backwards = cursor.ending_before !== undefined;
  if (cursorId !== undefined) {
    const at = await knex('read.merchants').where({ id: cursorId }).first<{ created_at: Date } | undefined>('created_at');
    if (!at) throw new ApiError('IKW-VAL-001', `No such object: '${cursorId}'`, backwards ? 'ending_before' : 'starting_after');
    q.whereRaw(`(m.created_at, m.id) ${backwards ? '>' : '<'} (?, ?)`, [at.created_at, cursorId]);
  }
  const direction = backwards ? 'asc' : 'desc';
  const rows = await q
    .orderBy([
      { column: 'm.created_at', order: direction },
      { column: 'm.id', order: direction },
    ])
    .limit(cursor.limit + 1);
  const page = rows.slice(0, cursor.limit);
  if (backwards) page.reverse();
  return { object: 'list', data: page.map(render), has_more: rows.length > cursor.limit, url };
}
