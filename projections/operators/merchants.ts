import type { Knex } from 'knex';
import { ApiError } from '../../packages/core/errors.js';
import type { CursorList, CursorQuery } from '../paging.js';

/** A merchant as the operators' list shows it (read.merchants, the merchants family's read model). */
export interface MerchantSummary {
  id: string;
  name: string;
  email: string | null;
  liveStatus: string;
  created: string;
}

export interface MerchantSearch {
  /** The merchant's id exactly, or words of its name or e-mail address (any case). */
  search?: string;
  liveStatus?: string;
}

interface Row {
  id: string;
  name: string;
  email: string | null;
  live_status: string;
  created_at: Date;
}

const render = (row: Row): MerchantSummary => ({ id: row.id, name: row.name, email: row.email, liveStatus: row.live_status, created: row.created_at.toISOString() });

/**
 * Every merchant of the platform (operators only: no owner narrows it), newest first, narrowed by
 * `filters`, cursor-paged by merchant id (ordered by creation, then id).
 */
export async function searchMerchants(knex: Knex, filters: MerchantSearch, cursor: CursorQuery, url: string): Promise<CursorList<MerchantSummary>> {
  if (cursor.starting_after && cursor.ending_before) throw new ApiError('IKW-VAL-001', 'starting_after and ending_before cannot be used together', 'ending_before');
  const q = knex('read.merchants').select<Row[]>('id', 'name', 'email', 'live_status', 'created_at');
  if (filters.liveStatus !== undefined) q.where({ live_status: filters.liveStatus });
  const search = filters.search?.trim();
  if (search) {
    const words = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q.where((w) => w.where({ id: search }).orWhereILike('name', words).orWhereILike('email', words));
  }
  const cursorId = cursor.starting_after ?? cursor.ending_before;
  const backwards = cursor.ending_before !== undefined;
  if (cursorId !== undefined) {
    const at = await knex('read.merchants').where({ id: cursorId }).first<{ created_at: Date } | undefined>('created_at');
    if (!at) throw new ApiError('IKW-VAL-001', `No such object: '${cursorId}'`, backwards ? 'ending_before' : 'starting_after');
    q.whereRaw(`(created_at, id) ${backwards ? '>' : '<'} (?, ?)`, [at.created_at, cursorId]);
  }
  const direction = backwards ? 'asc' : 'desc';
  const rows = await q.orderBy([{ column: 'created_at', order: direction }, { column: 'id', order: direction }]).limit(cursor.limit + 1);
  const page = rows.slice(0, cursor.limit);
  if (backwards) page.reverse();
  return { object: 'list', data: page.map(render), has_more: rows.length > cursor.limit, url };
}
