import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { PayoutBatchEvent } from '../payout-batch/events.js';
import type { PayoutEvent } from '#packages/families/payouts/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { insertRows, type Row } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Owner } from '#packages/core/owner.js';

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
    await insertRows(trx, TABLE, ['id'], await logRows(trx, [event]));
  },
  // Many events (a run's payouts, a wave's answers, a settlement shared by many payouts) in one lookup and one INSERT.
  async applyBatch(trx, events) {
    await insertRows(trx, TABLE, ['id'], await logRows(trx, events));
  },
};

const TABLE = 'read.payout_batch_logs';

interface Origin {
  batch_id: string;
  merchant_id: string;
  environment: string;
  item_index: number;
  attempt: number;
}

/**
 * The log rows of events, in order. A payout's later events find their batch through the row of
 * its creation: one lookup for those created before, and the creations among these events.
 */
async function logRows(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<Row[]> {
  const origins = new Map<string, Origin>();
  const unknown = new Set<string>();
  for (const event of events) {
    if (!event.type.startsWith('payout.')) continue;
    const p = event as unknown as RecordedEvent & PayoutEvent;
    if (p.data.object.metadata.source !== 'payout_engine') continue;
    if (p.type === 'payout.created') {
      if (p.data.batch) origins.set(p.data.object.id, { batch_id: p.data.batch.id, merchant_id: p.data.merchantId, environment: p.data.environment, item_index: p.data.batch.index, attempt: p.data.batch.attempt });
    } else if (!origins.has(p.data.object.id)) unknown.add(p.data.object.id);
  }
  if (unknown.size > 0) {
    const found = (await trx(TABLE)
      .whereIn('payout_id', [...unknown])
      .andWhere({ type: 'payout.created' })
      .select('payout_id', 'batch_id', 'merchant_id', 'environment', 'item_index', 'attempt')) as (Origin & { payout_id: string })[];
    for (const { payout_id: id, ...origin } of found) if (!origins.has(id)) origins.set(id, origin);
  }
  const rows: Row[] = [];
  for (const event of events) {
    const e = event as unknown as Exclude<PayoutBatchEvent, { type: 'payout_batch.items_sent' }> | PayoutEvent;
    const base = { id: event.eventId, seq: event.position, type: e.type, created_at: event.recordedAt };
    if (e.type.startsWith('payout_batch.')) {
      const b = e as Exclude<PayoutBatchEvent, { type: 'payout_batch.items_sent' }>;
      const batch = { ...base, batch_id: b.data.object.id, merchant_id: event.metadata.merchant_id, environment: event.metadata.environment, status: b.data.object.status };
      switch (b.type) {
        case 'payout_batch.execution_started':
          rows.push({ ...batch, attempt: b.data.attempt, amount: b.data.amount });
          break;
        case 'payout_batch.item_settled':
          // Items with a payout are logged by its events; this is an item stopped before it had one.
          if (b.data.payoutId === null) rows.push({ ...batch, item_index: b.data.index, attempt: b.data.attempt, status: 'canceled' });
          break;
        case 'payout_batch.created':
          rows.push({ ...batch, amount: b.data.object.total_amount });
          break;
        default:
          rows.push(batch);
      }
      continue;
    }
    const p = e as PayoutEvent;
    const object = p.data.object;
    if (object.metadata.source !== 'payout_engine') continue;
    const origin = origins.get(object.id);
    if (!origin || (p.type === 'payout.created' && !p.data.batch)) continue;
    rows.push({ ...base, ...origin, payout_id: object.id, status: object.status, amount: object.amount, ...(p.type === 'payout.created' ? {} : { failure_code: object.failure_code }) });
  }
  return rows;
}

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
  const rows = (await q
    .select('*')
    .orderBy('seq', 'asc')
    .limit(query.limit + 1)) as LogRow[];
  return { object: 'list' as const, data: rows.slice(0, query.limit).map(logObject), has_more: rows.length > query.limit, url };
}
