import type { Knex } from 'knex';
import type { PayoutEvent, PayoutObject } from '#packages/families/payouts/index.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import { SELLER_PAYOUT_METADATA_KEY } from '../marketplace-seller/payouts.js';
import type { Owner } from '#packages/core/owner.js';

const TABLE = 'read.marketplace_payouts';

/** A payout to a seller as the marketplace family shows it (camelCase, with the seller). */
export interface MarketplacePayoutObject {
  id: string;
  object: 'marketplace_payout';
  sellerId: string;
  amountMinor: number;
  feeMinor: number;
  currency: string;
  status: PayoutObject['status'];
  destination: PayoutObject['destination'];
  payoutMethodId: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  created: number;
}

function toMarketplacePayout(p: PayoutObject, sellerId: string): MarketplacePayoutObject {
  return {
    id: p.id,
    object: 'marketplace_payout',
    sellerId,
    amountMinor: p.amount,
    feeMinor: p.fee,
    currency: p.currency,
    status: p.status,
    destination: p.destination,
    payoutMethodId: p.payout_method_id,
    failureCode: p.failure_code,
    failureMessage: p.failure_message,
    metadata: p.metadata,
    livemode: p.livemode,
    created: p.created,
  };
}

/** read.marketplace_payouts: the payouts paid out of sellers' funds, as their latest event left them. */
export const marketplacePayoutsProjection: Projection = {
  name: 'marketplace_payouts',
  tables: [TABLE],
  migrations: [
    {
      name: 'marketplace_payouts/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql(TABLE, ['seller_ref text NOT NULL', 'seller_id text NOT NULL'])};
        CREATE INDEX marketplace_payouts_list ON ${TABLE} (merchant_id, environment, seq)`),
    },
  ],
  handles: ['payout.created', 'payout.dispatched', 'payout.updated', 'payout.delayed', 'payout.paid', 'payout.failed', 'payout.canceled'],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const e = event as unknown as PayoutEvent;
    const payout = e.data.object;
    // A seller's payout carries its seller in its metadata: other payouts' events touch no row here.
    const sellerId = payout.metadata[SELLER_PAYOUT_METADATA_KEY];
    if (sellerId === undefined) return [];
    const created = e.type === 'payout.created' && e.data.funding ? { merchant_id: e.data.merchantId, environment: e.data.environment, seller_ref: e.data.funding.sellerRef, seller_id: e.data.funding.sellerId } : null;
    return [snapshotChange(TABLE, event, toMarketplacePayout(payout, sellerId), created)];
  }),
};

const render = (stored: MarketplacePayoutObject) => stored;

export function findMarketplacePayout(knex: Knex, owner: Owner, id: string): Promise<MarketplacePayoutObject | undefined> {
  return findOwnedObject(knex, TABLE, owner, id, render);
}

/** This owner's payouts to sellers, newest first, cursor-paged, by seller (uuid) and status. */
export function listMarketplacePayouts(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { seller_ref?: string; status?: string }): Promise<CursorList<MarketplacePayoutObject>> {
  return cursorPageOfObjects(ownedRows(knex, TABLE, owner, filters), cursor, url, render);
}
