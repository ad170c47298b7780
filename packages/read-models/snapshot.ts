import type { Knex } from 'knex';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { applyRowChanges, type RowChange } from './batch.js';

/** The columns a snapshot read model fills when its resource is created (besides seq and object). */
export interface SnapshotKeys {
  merchant_id: string;
  environment: string;
  [column: string]: unknown;
}

/**
 * The table of a snapshot read model: the columns snapshotChange fills, `columns` (filled when the
 * resource is created, e.g. `customer text NOT NULL`) for the lists' filters, then the object.
 */
export function snapshotTableSql(table: string, columns: string[] = []): string {
  return `CREATE TABLE ${table} (
    id text PRIMARY KEY,
    seq text NOT NULL,
    merchant_id text NOT NULL,
    environment text NOT NULL,
    status text NOT NULL,${columns.map((c) => `\n    ${c},`).join('')}
    object json NOT NULL
  )`;
}

/**
 * Read models that keep a resource as its latest public event left it (`data.object`): the
 * creating event inserts the row (ordered by the event's position, so a rebuild gives the same
 * rows); every later event replaces `status` and `object`.
 */
export function snapshotChange(table: string, event: RecordedEvent, object: { id: string; status: string }, created: SnapshotKeys | null): RowChange {
  if (created) return { table, insert: { ...created, id: object.id, seq: event.position, status: object.status, object } };
  return { table, key: { id: object.id }, set: { status: object.status, object } };
}

/** One snapshot change, for read models that are not all row changes (see rowChangeProjection). */
export function storeSnapshot(trx: Knex.Transaction, table: string, event: RecordedEvent, object: { id: string; status: string }, created: SnapshotKeys | null): Promise<void> {
  return applyRowChanges(trx, table, ['id'], [snapshotChange(table, event, object, created)]);
}
