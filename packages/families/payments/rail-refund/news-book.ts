import type { Knex } from 'knex';
import type { RefundBook } from '#packages/connectors/news-desk.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { storedRailRefund } from './commands.js';

/** The refunds through a rail (every family's) as the news desk matches the rails' news to them (packages/connectors/news-desk.ts). */
export function refundBook(store: EventStore, knex: Knex): RefundBook {
  return {
    stored: (refundId, owner) => storedRailRefund(store, refundId, owner),
    async pendingOf(connector, environment, operationId, money) {
      const rows = await knex('read.rail_refunds').where({ connector, environment, status: 'pending', amount: money.amount, currency: money.currency }).select<{ id: string; merchant_id: string }[]>('id', 'merchant_id');
      const pending: { refundId: string; merchantId: string }[] = [];
      for (const row of rows) {
        // The read model only points: the refund's own stream says which collection it returns money of.
        const refund = await storedRailRefund(store, row.id, { merchantId: row.merchant_id, environment });
        if (refund?.operationId === operationId) pending.push({ refundId: row.id, merchantId: row.merchant_id });
      }
      return pending;
    },
    async open(environment) {
      const rows = await knex('read.rail_refunds').where({ environment, status: 'pending' }).select<{ id: string; merchant_id: string }[]>('id', 'merchant_id');
      return rows.map((r) => ({ merchantId: r.merchant_id, sikaId: r.id }));
    },
  };
}
