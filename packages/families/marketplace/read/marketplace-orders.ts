import type { Knex } from 'knex';
import type { OrderEvent, OrderObject } from '../marketplace-order/events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

const TABLE = 'read.marketplace_orders';

/** read.marketplace_orders: each order as its latest event left it. */
export const marketplaceOrdersProjection: Projection = {
  name: 'marketplace_orders',
  tables: [TABLE],
  migrations: [
    {
      name: 'marketplace_orders/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql(TABLE, ['currency text NOT NULL'])};
        CREATE INDEX marketplace_orders_list ON ${TABLE} (merchant_id, environment, seq)`),
    },
  ],
  handles: ['marketplace_order.created', 'marketplace_order.paid', 'marketplace_order.refunded', 'marketplace_order.canceled'],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const e = event as unknown as OrderEvent;
    const created = e.type === 'marketplace_order.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, currency: e.data.currency } : null;
    return [snapshotChange(TABLE, event, e.data.object, created)];
  }),
};

const render = (stored: OrderObject) => stored;

export function findMarketplaceOrder(knex: Knex, owner: Owner, id: string): Promise<OrderObject | undefined> {
  return findOwnedObject(knex, TABLE, owner, id, render);
}

/** This owner's orders, newest first, cursor-paged, by status and currency. */
export function listMarketplaceOrders(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { status?: string; currency?: string }): Promise<CursorList<OrderObject>> {
  return cursorPageOfObjects(ownedRows(knex, TABLE, owner, filters), cursor, url, render);
}
