import type { Knex } from 'knex';
import type { SellerEvent, SellerObject } from '../marketplace-seller/events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

const TABLE = 'read.marketplace_sellers';

/**
 * read.marketplace_sellers: each seller as its latest event left it, with its settlement schedule in
 * columns, which the due settlements are computed from (packages/families/marketplace/read/marketplace-funds.ts).
 */
export const marketplaceSellersProjection: Projection = {
  name: 'marketplace_sellers',
  tables: [TABLE],
  migrations: [
    {
      name: 'marketplace_sellers/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql(TABLE, ['seller_id text NOT NULL', 'settlement_mode text NOT NULL', 'settlement_delay_days integer NOT NULL'])};
        CREATE INDEX marketplace_sellers_list ON ${TABLE} (merchant_id, environment, seq)`),
    },
  ],
  handles: ['marketplace_seller.created', 'marketplace_seller.settlement_updated'],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const e = event as unknown as SellerEvent;
    const o = e.data.object;
    if (e.type === 'marketplace_seller.created') {
      const created = { merchant_id: e.data.merchantId, environment: e.data.environment, seller_id: o.sellerId, settlement_mode: o.settlementMode, settlement_delay_days: o.settlementDelayDays };
      return [snapshotChange(TABLE, event, o, created)];
    }
    return [{ table: TABLE, key: { id: o.id }, set: { status: o.status, settlement_mode: o.settlementMode, settlement_delay_days: o.settlementDelayDays, object: o } }];
  }),
};

const render = (stored: SellerObject) => stored;

export function findMarketplaceSeller(knex: Knex, owner: Owner, id: string): Promise<SellerObject | undefined> {
  return findOwnedObject(knex, TABLE, owner, id, render);
}

/** This owner's sellers, newest first, cursor-paged, by settlement mode. */
export function listMarketplaceSellers(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { settlement_mode?: string }): Promise<CursorList<SellerObject>> {
  return cursorPageOfObjects(ownedRows(knex, TABLE, owner, filters), cursor, url, render);
}
