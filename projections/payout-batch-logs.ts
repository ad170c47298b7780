import type { Knex } from 'knex';
import { unixSeconds } from '../packages/core/clock.js';
import type { Owner } from '../packages/domain/audit.js';
import type { PayoutBatchEvent } from '../packages/domain/payout-batch/events.js';
import type { PayoutEvent } from '../packages/domain/payout/events.js';
import type { Projection } from './projection.js';
import { ownedRows } from './queries.js';

/**
 * read.payout_batch_logs: the execution log of each batch, in the order things happened: the
 * batch's own steps and every event of its payouts (created, in transit, delayed, paid, failed,
 * canceled). A payout's later events find their batch through the row of its creation.
 */
export const payoutBatchLogsProjection: Projection = {
  name: 'payout_batch_logs',
  tables: ['read.payout_batch_logs'],
  migrations: [
    {
      name: 'payout_batch_logs/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.payout_batch_logs (
          id text PRIMARY KEY,
          seq text NOT NULL,
          batch_id text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          type text NOT NULL,
          item_index integer,
          payout_id text,
          attempt integer,
          status text NOT NULL,
          amount bigint,
          failure_code text,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX payout_batch_logs_list ON read.payout_batch_logs (batch_id, seq);
        CREATE INDEX payout_batch_logs_payout ON read.payout_batch_logs (payout_id)`),
    },
  ],
  handles: [
    'payout_batch.created',
    'payout_batch.execution_started',
    'payout_batch.item_settled',
    'payout_batch.canceled',
    'payout_batch.completed',
    'payout_batch.partially_failed',
    'payout_batch.failed',
    'payout.created',
    'payout.updated',
    'payout.delayed',
    'payout.paid',
    'payout.failed',
    'payout.canceled',
  ],
  async apply(trx, event) {
    const e = event as unknown as Exclude<PayoutBatchEvent, { type: 'payout_batch.items_sent' }> | PayoutEvent;
    const base = { id: event.eventId, seq: event.position, type: e.type, created_at: event.recordedAt };
    const insert = (row: Record<string, unknown>) => trx('read.payout_batch_logs').insert({ ...base, ...row }).onConflict('id').ignore();
    if (e.type.startsWith('payout_batch.')) {
      const b = e as Exclude<PayoutBatchEvent, { type: 'payout_batch.items_sent' }>;
      const batch = { batch_id: b.data.object.id, merchant_id: event.metadata.merchant_id, environment: event.metadata.environment, status: b.data.object.status };
      switch (b.type) {
        case 'payout_batch.execution_started':
          return void (await insert({ ...batch, attempt: b.data.attempt, amount: b.data.amount }));
        case 'payout_batch.item_settled':
          // Items with a payout are logged by its events; this is an item stopped before it had one.
          if (b.data.payoutId === null) await insert({ ...batch, item_index: b.data.index, attempt: b.data.attempt, status: 'canceled' });
          return;
        case 'payout_batch.created':
          return void (await insert({ ...batch, amount: b.data.object.total_amount }));
        default:
          return void (await insert(batch));
      }
    }
    const p = e as PayoutEvent;
    const object = p.data.object;
    if (object.metadata.source !== 'payout_engine') return;
    if (p.type === 'payout.created') {
      const ref = p.data.batch;
      if (!ref) return;
      await insert({ batch_id: ref.id, merchant_id: p.data.merchantId, environment: p.data.environment, item_index: ref.index, attempt: ref.attempt, payout_id: object.id, status: object.status, amount: object.amount });
      return;
    }
    const origin = await trx('read.payout_batch_logs').where({ payout_id: object.id, type: 'payout.created' }).first<{ batch_id: string; merchant_id: string; environment: string; item_index: number; attempt: number } | undefined>();
    if (!origin) return;
    await insert({
      batch_id: origin.batch_id,
      merchant_id: origin.merchant_id,
      environment: origin.environment,
      item_index: origin.item_index,
      attempt: origin.attempt,
      payout_id: object.id,
      status: object.status,
      amount: object.amount,
      failure_code: object.failure_code,
    });
  },
};

interface LogRow {
  id: string;
  batch_id: string;
  type: string;
  item_index: number | null;
  payout_id: string | null;
  attempt: number | null;
  status: string;
  amount: string | null;
  failure_code: string | null;
  created_at: Date;
}

const logObject = (row: LogRow) => ({
  id: row.id,
  object: 'payout_batch_log' as const,
  batch_id: row.batch_id,
  type: row.type,
  item_index: row.item_index,
  payout_id: row.payout_id,
  attempt: row.attempt,
  status: row.status,
  amount: row.amount === null ? null : Number(row.amount),
  failure_code: row.failure_code,
  created: unixSeconds(row.created_at),
});

/** A batch's execution log, oldest first (the order things happened); `starting_after` is a log entry id. */
export async function listPayoutBatchLogs(knex: Knex, owner: Owner, batchId: string, query: { limit: number; starting_after?: string }, url: string) {
  const q = ownedRows(knex, 'read.payout_batch_logs', owner, { batch_id: batchId });
  if (query.starting_after !== undefined) {
    const cursor = await q.clone().where({ id: query.starting_after }).select('seq').first<{ seq: string } | undefined>();
    if (!cursor) return null;
    q.where('seq', '>', cursor.seq);
  }
  const rows = (await q.select('*').orderBy('seq', 'asc').limit(query.limit + 1)) as LogRow[];
  return { object: 'list' as const, data: rows.slice(0, query.limit).map(logObject), has_more: rows.length > query.limit, url };
}
