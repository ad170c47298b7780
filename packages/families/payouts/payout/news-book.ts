import type { Knex } from 'knex';
import type { PayoutBook } from '#packages/connectors/news-desk.js';
import { isOfEnvironment, isOwned } from '#packages/core/aggregate.js';
import { loadState } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { payoutStream } from './events.js';
import { payoutAggregate } from './render.js';

/** The payouts as the news desk matches the rails' news to them (registered with it when the system opens: packages/connectors/news-desk.ts). */
export function payoutBook(store: EventStore, knex: Knex): PayoutBook {
  return {
    async stored(payoutId, owner) {
      const { state } = await loadState(store, payoutStream(payoutId), payoutAggregate);
      const p = state.payout;
      const matches = owner.merchantId === undefined ? isOfEnvironment(p, owner.environment) : isOwned(p, { merchantId: owner.merchantId, environment: owner.environment });
      return matches ? p : null;
    },
    async open(environment) {
      const rows = await knex('read.payouts').where({ environment }).whereIn('status', ['pending', 'in_transit']).select<{ id: string; merchant_id: string }[]>('id', 'merchant_id');
      return rows.map((r) => ({ merchantId: r.merchant_id, sikaId: r.id }));
    },
  };
}
