import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { LedgerEvent } from '#packages/families/ledger/index.js';
import type { OrderEvent, RefundObject } from '../marketplace-order/events.js';
import type { MarketplaceEntry } from '../marketplace-order/postings.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

const TABLE = 'read.marketplace_refunds';

/**
 * read.marketplace_refunds: each refund of a marketplace order. The order's `refunded` event makes
 * the row; the ledger's reversal (an `order_refund` entry), appended in the same commit, fills in
 * what each seller and the commission gave back.
 */
export const marketplaceRefundsProjection: Projection = {
  name: 'marketplace_refunds',
  tables: [TABLE],
  migrations: [
    {
      name: 'marketplace_refunds/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql(TABLE, ['order_id text NOT NULL'])};
        CREATE INDEX marketplace_refunds_list ON ${TABLE} (merchant_id, environment, seq);
        CREATE INDEX marketplace_refunds_order ON ${TABLE} (order_id)`),
    },
  ],
  handles: ['marketplace_order.refunded', 'ledger.entry_posted'],
  async apply(trx, event) {
    const e = event as unknown as Extract<OrderEvent, { type: 'marketplace_order.refunded' }> | LedgerEvent;
    if (e.type === 'marketplace_order.refunded') {
      const order = e.data.object;
      const refund: RefundObject = {
        id: e.data.refundId,
        object: 'marketplace_refund',
        orderId: order.id,
        amountMinor: e.data.amountMinor,
        currency: order.currency,
        reason: e.data.reason,
        status: 'succeeded',
        sellerReversals: [],
        commissionReversedMinor: 0,
        livemode: order.livemode,
        created: unixSeconds(new Date(e.data.at)),
      };
      await trx(TABLE)
        .insert({ id: refund.id, seq: event.position, merchant_id: event.metadata.merchant_id, environment: event.metadata.environment, status: refund.status, order_id: order.id, object: JSON.stringify(refund) })
        .onConflict('id')
        .ignore();
      return;
    }
    if (e.data.kind !== 'order_refund') return;
    const row = await trx(TABLE).where({ id: e.data.source }).select('object').first<{ object: RefundObject } | undefined>();
    if (!row) return;
    const refund: RefundObject = {
      ...row.object,
      sellerReversals: ((e.data as MarketplaceEntry).reversals ?? []).map((r) => ({ sellerId: r.sellerId, amountMinor: r.amount, fromPendingMinor: r.fromPending })),
      commissionReversedMinor: (e.data as MarketplaceEntry).commission ?? 0,
    };
    await trx(TABLE)
      .where({ id: refund.id })
      .update({ object: JSON.stringify(refund) });
  },
};

const render = (stored: RefundObject) => stored;

export function findMarketplaceRefund(knex: Knex, owner: Owner, id: string): Promise<RefundObject | undefined> {
  return findOwnedObject(knex, TABLE, owner, id, render);
}

/** This owner's refunds, newest first, cursor-paged, of one order when `order_id` is given. */
export function listMarketplaceRefunds(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { order_id?: string }): Promise<CursorList<RefundObject>> {
  return cursorPageOfObjects(ownedRows(knex, TABLE, owner, filters), cursor, url, render);
}
