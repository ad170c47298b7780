import type { Knex } from 'knex';
import { orderKeys } from '../../packages/core/json.js';
import type { RefundEvent, RefundObject } from '../../packages/families/billing/refund/events.js';
import type { PageList, PageQuery } from '../paging.js';
import { rowChangeProjection } from '../batch.js';
import type { Projection } from '../projection.js';
import { ownedRows, pageOfObjects } from '../queries.js';
import { snapshotChange } from '../snapshot.js';
import type { Owner } from '../../packages/core/owner.js';

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
  ],
  handles: ['refund.created', 'refund.succeeded', 'refund.failed'],
  ...rowChangeProjection({ 'read.refunds': ['id'] }, (event) => {
    const e = event as unknown as RefundEvent;
    const object = e.data.object;
    const created =
      e.type === 'refund.created' ? { merchant_id: e.data.payment.merchantId, environment: e.data.payment.environment, payment_intent: object.payment_intent } : null;
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
