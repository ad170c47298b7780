import type { Knex } from 'knex';
import { orderKeys } from '../packages/core/json.js';
import type { Owner } from '../packages/domain/audit.js';
import type { Destination } from '../packages/domain/payout-method/events.js';
import type { PayoutEvent, PayoutObject, PayoutStatus } from '../packages/domain/payout/events.js';
import type { PageList, PageQuery } from './paging.js';
import { rowChangeProjection } from './batch.js';
import type { Projection } from './projection.js';
import { findOwnedObject, ownedRows, pageOfObjects } from './queries.js';
import { snapshotChange, snapshotTableSql } from './snapshot.js';

/** read.payouts: the public Payout object, as its latest event left it (json keeps field order). */
export const payoutsProjection: Projection = {
  name: 'payouts',
  tables: ['read.payouts'],
  migrations: [
    {
      name: 'payouts/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.payouts')};
        CREATE INDEX payouts_list ON read.payouts (merchant_id, environment, seq);
        CREATE INDEX payouts_status ON read.payouts (merchant_id, environment, status, seq)`),
    },
  ],
  handles: ['payout.created', 'payout.updated', 'payout.delayed', 'payout.paid', 'payout.failed', 'payout.canceled'],
  ...rowChangeProjection({ 'read.payouts': ['id'] }, (event) => {
    const e = event as unknown as PayoutEvent;
    const object = e.data.object;
    const created = e.type === 'payout.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment } : null;
    return [snapshotChange('read.payouts', event, object, created)];
  }),
};

const PAYOUT_KEYS: readonly (keyof PayoutObject)[] = [
  'id', 'object', 'amount', 'currency', 'status', 'destination', 'payout_method_id', 'arrival_date_estimate', 'expected_by',
  'delay_state', 'delay_reason', 'delayed_at', 'metadata', 'failure_code', 'failure_message', 'fee', 'created', 'livemode',
];
const DESTINATION_KEYS = ['type', 'currency', 'country', 'operator', 'msisdn', 'bank_code', 'account_number', 'account_name'] as (keyof Destination)[];

/** A stored payout in the documented field order. */
export function renderPayout(stored: PayoutObject): PayoutObject {
  return orderKeys({ ...stored, destination: orderKeys(stored.destination, DESTINATION_KEYS) }, PAYOUT_KEYS);
}

export function findPayout(knex: Knex, owner: Owner, id: string): Promise<PayoutObject | undefined> {
  return findOwnedObject(knex, 'read.payouts', owner, id, renderPayout);
}

/** A page of this owner's payouts, newest first. */
export function listPayouts(knex: Knex, owner: Owner, page: PageQuery, filters: { status?: PayoutStatus }): Promise<PageList<PayoutObject>> {
  return pageOfObjects(ownedRows(knex, 'read.payouts', owner, filters), page, renderPayout);
}
