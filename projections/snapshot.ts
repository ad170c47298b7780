import type { Knex } from 'knex';
import type { RecordedEvent } from '../packages/eventstore/port.js';

/** The columns a snapshot read model fills when its resource is created (besides seq and object). */
export interface SnapshotKeys {
  merchant_id: string;
  environment: string;
  [column: string]: unknown;
}

/**
 * The table of a snapshot read model: the columns storeSnapshot fills, `columns` (filled when the
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
export async function storeSnapshot(
  trx: Knex.Transaction,
  table: string,
  event: RecordedEvent,
  object: { id: string; status: string },
  created: SnapshotKeys | null,
): Promise<void> {
  const json = JSON.stringify(object);
  if (created) {
    await trx(table)
      .insert({ ...created, id: object.id, seq: event.position, status: object.status, object: json })
      .onConflict('id')
      .ignore();
    return;
  }
  await trx(table).where({ id: object.id }).update({ status: object.status, object: json });
}
