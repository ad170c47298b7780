import type { Knex } from 'knex';
import { itemPayoutId, type PayoutBatchEvent } from '../payout-batch/events.js';
import type { Destination } from '#packages/families/payouts/index.js';
import type { PayoutEvent, PayoutObject } from '#packages/families/payouts/index.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * read.payout_batch_items: one row per instruction of a batch, with the payout of its current
 * attempt and that payout's live status: validated (not executed), queued (its payout not yet
 * created), pending, in_transit, paid, failed, canceled.
 */
export const payoutBatchItemsProjection: Projection = {
  name: 'payout_batch_items',
  tables: ['read.payout_batch_items'],
  migrations: [
    {
      name: 'payout_batch_items/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.payout_batch_items (
          batch_id text NOT NULL,
          item_index integer NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          amount bigint NOT NULL,
          fee bigint NOT NULL,
          currency text NOT NULL,
          destination json NOT NULL,
          recipient_id text,
          reference text,
          status text NOT NULL,
          attempt integer NOT NULL,
          payout_id text,
          failure_code text,
          PRIMARY KEY (batch_id, item_index)
        );
        CREATE INDEX payout_batch_items_payout ON read.payout_batch_items (payout_id)`),
    },
  ],
  handles: ['payout_batch.created', 'payout_batch.execution_started', 'payout_batch.item_settled', 'payout_batch.canceled', 'payout.created', 'payout.updated', 'payout.paid', 'payout.failed', 'payout.canceled'],
  async apply(trx, event) {
    const e = event as unknown as PayoutBatchEvent | PayoutEvent;
    const items = trx('read.payout_batch_items');
    switch (e.type) {
      case 'payout_batch.created': {
        const b = e.data;
        const rows = b.items.map((i) => ({
          batch_id: b.id,
          item_index: i.index,
          merchant_id: b.merchantId,
          environment: b.environment,
          amount: i.amount,
          fee: i.fee,
          currency: b.currency,
          destination: JSON.stringify(i.destination),
          recipient_id: i.recipientId,
          reference: i.reference,
          status: 'validated',
          attempt: 0,
        }));
        await trx.batchInsert('read.payout_batch_items', rows, 1000);
        return;
      }
      case 'payout_batch.execution_started': {
        const batchId = e.data.object.id;
        const payoutIds = e.data.indexes.map((i) => itemPayoutId(batchId, i, e.data.attempt));
        await trx.raw(
          `UPDATE ?? AS t SET status = 'queued', attempt = ?, payout_id = started.payout_id, failure_code = NULL
           FROM (SELECT unnest(?::int[]) AS item_index, unnest(?::text[]) AS payout_id) AS started
           WHERE t.batch_id = ? AND t.item_index = started.item_index`,
          ['read.payout_batch_items', e.data.attempt, e.data.indexes, payoutIds, batchId],
        );
        return;
      }
      case 'payout_batch.item_settled':
        // An item stopped before it had a payout; the others follow their payout's events.
        if (e.data.payoutId === null) await items.where({ batch_id: e.data.object.id, item_index: e.data.index }).update({ status: 'canceled', payout_id: null });
        return;
      case 'payout_batch.canceled':
        await items.where({ batch_id: e.data.object.id, status: 'validated' }).update({ status: 'canceled' });
        return;
      case 'payout_batch.items_sent':
      case 'payout_batch.completed':
      case 'payout_batch.partially_failed':
      case 'payout_batch.failed':
      case 'payout.delayed':
      case 'payout.dispatched':
      case 'payout.review_declined':
      case 'payout.review_released':
        return; // not in `handles`: never delivered here
      case 'payout.created':
      case 'payout.updated':
      case 'payout.paid':
      case 'payout.failed':
      case 'payout.canceled':
        await updatePayoutStatuses(trx, [e.data.object]);
        return;
    }
  },
  // A run of payout events is one UPDATE (each payout's last status, as row by row leaves it); the batch's own events go one by one, in order.
  async applyBatch(trx, events) {
    let run: PayoutObject[] = [];
    for (const event of events) {
      if (event.type.startsWith('payout.')) {
        run.push((event.data as { object: PayoutObject }).object);
        continue;
      }
      await updatePayoutStatuses(trx, run);
      run = [];
      await payoutBatchItemsProjection.apply(trx, event);
    }
    await updatePayoutStatuses(trx, run);
  },
};

/** The live status of the items whose payouts these are (the payout engine's only); the last object of a payout wins. */
async function updatePayoutStatuses(trx: Knex.Transaction, objects: readonly PayoutObject[]): Promise<void> {
  const last = new Map<string, PayoutObject>();
  for (const o of objects) if (o.metadata.source === 'payout_engine') last.set(o.id, o);
  if (last.size === 0) return;
  const latest = [...last.values()];
  await trx.raw(
    `UPDATE ?? AS t SET status = v.status, failure_code = v.failure_code
     FROM json_to_recordset(?::json) AS v(payout_id text, status text, failure_code text)
     WHERE t.payout_id = v.payout_id`,
    ['read.payout_batch_items', JSON.stringify(latest.map((o) => ({ payout_id: o.id, status: o.status, failure_code: o.failure_code })))],
  );
}

export interface PayoutBatchItemObject {
  object: 'payout_batch_item';
  batch_id: string;
  index: number;
  amount: number;
  fee: number;
  currency: string;
  destination: Destination;
  recipient_id: string | null;
  reference: string | null;
  status: string;
  attempt: number;
  payout_id: string | null;
  failure_code: string | null;
}

interface ItemRow {
  batch_id: string;
  item_index: number;
  amount: string;
  fee: string;
  currency: string;
  destination: Destination;
  recipient_id: string | null;
  reference: string | null;
  status: string;
  attempt: number;
  payout_id: string | null;
  failure_code: string | null;
}

const itemObject = (row: ItemRow): PayoutBatchItemObject => ({
  object: 'payout_batch_item',
  batch_id: row.batch_id,
  index: row.item_index,
  amount: Number(row.amount),
  fee: Number(row.fee),
  currency: row.currency,
  destination: row.destination,
  recipient_id: row.recipient_id,
  reference: row.reference,
  status: row.status,
  attempt: row.attempt,
  payout_id: row.payout_id,
  failure_code: row.failure_code,
});

export interface ItemsQuery {
  limit: number;
  starting_after?: number;
  status?: string;
}

/** A batch's items in index order; `starting_after` is an index. The batch must be the owner's (found first). */
export async function listPayoutBatchItems(knex: Knex, owner: Owner, batchId: string, query: ItemsQuery, url: string) {
  const q = ownedRows(knex, 'read.payout_batch_items', owner, { batch_id: batchId, status: query.status });
  if (query.starting_after !== undefined) q.where('item_index', '>', query.starting_after);
  const rows = (await q
    .select('*')
    .orderBy('item_index', 'asc')
    .limit(query.limit + 1)) as ItemRow[];
  return { object: 'list' as const, data: rows.slice(0, query.limit).map(itemObject), has_more: rows.length > query.limit, url };
}

/** How many items of a batch are in each status (the bench and the tests count with it). */
export async function payoutBatchItemStatuses(knex: Knex, batchId: string): Promise<Record<string, number>> {
  const rows = await knex('read.payout_batch_items').where({ batch_id: batchId }).groupBy('status').select('status').count<{ status: string; count: string }[]>('* as count');
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
}
