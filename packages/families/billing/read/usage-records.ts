import type { Knex } from 'knex';
import type { SubscriptionEvent, UsageRecord } from '../subscription/events.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Owner } from '#packages/core/owner.js';

/** read.usage_records: the metered usage recorded on subscriptions, for the billing family's usage list. */
export const usageRecordsProjection: Projection = {
  name: 'usage_records',
  tables: ['read.usage_records'],
  migrations: [
    {
      name: 'usage_records/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.usage_records (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          subscription_id text NOT NULL,
          record json NOT NULL
        );
        CREATE INDEX usage_records_list ON read.usage_records (merchant_id, environment, subscription_id, seq)`),
    },
  ],
  handles: ['subscription.usage_recorded'],
  async apply(trx, event) {
    const e = event as unknown as SubscriptionEvent;
    if (e.type !== 'subscription.usage_recorded') return;
    const { merchant_id, environment } = event.metadata;
    if (!merchant_id || !environment) return;
    const r = e.data.record;
    await trx('read.usage_records')
      .insert({ id: r.id, seq: event.position, merchant_id, environment, subscription_id: r.subscriptionId, record: JSON.stringify(r) })
      .onConflict('id')
      .ignore();
  },
};

/** The usage records of one of this owner's subscriptions, cursor-paged, newest first. */
export function listUsageRecords(knex: Knex, owner: Owner, subscriptionId: string, cursor: CursorQuery, url: string): Promise<CursorList<UsageRecord>> {
  const query = ownedRows(knex, 'read.usage_records', owner, { subscription_id: subscriptionId }).select('id', 'seq', 'record');
  return cursorPage<{ seq: string; record: UsageRecord }, UsageRecord>(query, cursor, url, 'id', (row) => row.record);
}
