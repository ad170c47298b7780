import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { RefundEvent, RefundObject, RefundStatus } from '../refund/events.js';
import { localTimestamp } from '#packages/core/time-zone.js';
import { whereCreated, type CreatedRange, type CursorList, type CursorQuery, type PageList, type PageQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, everyObjectNewestFirst, ownedRows, pageOfObjects } from '#packages/read-models/queries.js';
import { snapshotChange } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.refunds: every refund with its payment, as its latest event left it. */
export const refundsProjection: Projection = {
  name: 'refunds',
  tables: ['read.refunds'],
  migrations: [
    {
      name: 'refunds/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.refunds (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          payment_intent text NOT NULL,
          status text NOT NULL,
          object json NOT NULL
        );
        CREATE INDEX refunds_payment ON read.refunds (payment_intent, seq)`),
    },
    {
      // The list of all the merchant's refunds (GET /api/v1/merchant/refunds) and its export.
      name: 'refunds/002-list-index',
      up: (knex) => knex.raw('CREATE INDEX refunds_list ON read.refunds (merchant_id, environment, seq)'),
    },
  ],
  handles: ['refund.created', 'refund.succeeded', 'refund.failed'],
  ...rowChangeProjection({ 'read.refunds': ['id'] }, (event) => {
    const e = event as unknown as RefundEvent;
    const object = e.data.object;
    const created = e.type === 'refund.created' ? { merchant_id: e.data.payment.merchantId, environment: e.data.payment.environment, payment_intent: object.payment_intent } : null;
    return [snapshotChange('read.refunds', event, object, created)];
  }),
};

const REFUND_KEYS: readonly (keyof RefundObject)[] = ['id', 'object', 'amount', 'currency', 'payment_intent', 'status', 'reason', 'failure_reason', 'failure_code', 'failure_message', 'created', 'livemode'];

/** A stored refund as the API shows it; refunds stored before `failure_code` existed show it as the object would now. */
export function renderRefund(stored: RefundObject): RefundObject {
  const failureCode = stored.failure_code !== undefined ? stored.failure_code : stored.status === 'failed' ? stored.failure_reason : null;
  return orderKeys({ ...stored, failure_code: failureCode, failure_message: stored.failure_message ?? null }, REFUND_KEYS);
}

/** A page of the refunds of one of this owner's payments, newest first. */
export function listRefunds(knex: Knex, owner: Owner, paymentIntentId: string, page: PageQuery): Promise<PageList<RefundObject>> {
  return pageOfObjects(ownedRows(knex, 'read.refunds', owner).where({ payment_intent: paymentIntentId }), page, renderRefund);
}

/** What the list of all refunds and its export narrow to: a status, a period of `created`. */
export interface RefundFilters {
  status?: RefundStatus | undefined;
  created?: CreatedRange;
}

function refundRows(knex: Knex, owner: Owner, filters: RefundFilters): Knex.QueryBuilder {
  const q = ownedRows(knex, 'read.refunds', owner, { status: filters.status });
  if (filters.created) whereCreated(q, knex.raw(`to_timestamp((object->>'created')::bigint)`), filters.created);
  return q;
}

/** A cursor page of this owner's refunds of every payment, newest first. */
export function listAllRefunds(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: RefundFilters): Promise<CursorList<RefundObject>> {
  return cursorPageOfObjects(refundRows(knex, owner, filters), cursor, url, renderRefund);
}

/** The columns of the refunds' CSV export: the list's, with ids. */
export const REFUND_CSV_COLUMNS = ['id', 'created', 'payment_intent', 'amount', 'currency', 'reason', 'status', 'failure_code', 'failure_message'] as const;

/** Every refund `listAllRefunds` would list with `filters`, newest first, as the CSV export's records: `created` in `timeZone`. */
export async function* refundRecords(knex: Knex, owner: Owner, filters: RefundFilters, timeZone: string): AsyncGenerator<Record<(typeof REFUND_CSV_COLUMNS)[number], string | number | null>> {
  for await (const r of everyObjectNewestFirst(refundRows(knex, owner, filters), renderRefund)) {
    yield {
      id: r.id,
      created: localTimestamp(new Date(r.created * 1000), timeZone),
      payment_intent: r.payment_intent,
      amount: r.amount,
      currency: r.currency,
      reason: r.reason,
      status: r.status,
      failure_code: r.failure_code,
      failure_message: r.failure_message,
    };
  }
}
