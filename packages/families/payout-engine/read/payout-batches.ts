import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { BatchStatus, PayoutBatchEvent, PayoutBatchObject } from '../payout-batch/events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.payout_batches: each batch with its totals and item counts, as its latest event left it. */
export const payoutBatchesProjection: Projection = {
  name: 'payout_batches',
  tables: ['read.payout_batches'],
  migrations: [
    {
      name: 'payout_batches/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.payout_batches')};
        CREATE INDEX payout_batches_list ON read.payout_batches (merchant_id, environment, seq)`),
    },
  ],
  handles: ['payout_batch.created', 'payout_batch.execution_started', 'payout_batch.item_settled', 'payout_batch.canceled', 'payout_batch.completed', 'payout_batch.partially_failed', 'payout_batch.failed'],
  ...rowChangeProjection({ 'read.payout_batches': ['id'] }, (event) => {
    const e = event as unknown as Exclude<PayoutBatchEvent, { type: 'payout_batch.items_sent' }>;
    const created = e.type === 'payout_batch.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment } : null;
    return [snapshotChange('read.payout_batches', event, e.data.object, created)];
  }),
};

const BATCH_KEYS: readonly (keyof PayoutBatchObject)[] = [
  'id',
  'object',
  'status',
  'currency',
  'total_amount',
  'total_fee',
  'item_count',
  'counts',
  'attempt',
  'idempotency_key',
  'metadata',
  'source_format',
  'created',
  'executed_at',
  'finished_at',
  'canceled_at',
  'livemode',
];

const renderBatch = (stored: PayoutBatchObject) => orderKeys(stored, BATCH_KEYS);

export function findPayoutBatch(knex: Knex, owner: Owner, id: string): Promise<PayoutBatchObject | undefined> {
  return findOwnedObject(knex, 'read.payout_batches', owner, id, renderBatch);
}

/** This owner's batches, newest first, cursor-paged. */
export function listPayoutBatches(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { status?: BatchStatus }): Promise<CursorList<PayoutBatchObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.payout_batches', owner, filters), cursor, url, renderBatch);
}
