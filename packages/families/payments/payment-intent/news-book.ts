import type { Knex } from 'knex';
import type { CollectionBook } from '#packages/connectors/news-desk.js';
import { isOfEnvironment, isOwned } from '#packages/core/aggregate.js';
import { loadState } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { paymentIntentStream } from './events.js';
import { paymentIntentAggregate } from './render.js';

/**
 * The payments' collections as the news desk matches the rails' news to them (registered with it
 * when the system opens: packages/connectors/news-desk.ts). The read model only points: the
 * payment's own stream says whether an operation is its current one.
 */
export function collectionBook(store: EventStore, knex: Knex): CollectionBook {
  const stateOf = async (paymentIntentId: string) => (await loadState(store, paymentIntentStream(paymentIntentId), paymentIntentAggregate)).state;
  return {
    async stored(callback) {
      const state = await stateOf(callback.paymentIntentId);
      const intent = state.intent;
      const ours = isOwned(intent, callback) && state.confirmation?.operationId === callback.operationId;
      return ours ? intent : null;
    },
    async intent(paymentIntentId, environment) {
      const state = await stateOf(paymentIntentId);
      return isOfEnvironment(state.intent, environment) ? state.intent : null;
    },
    async ofOperation(environment, operationId) {
      const row = await knex('read.payment_intents').where({ environment }).whereRaw(`object->>'latest_operation' = ?`, [operationId]).first<{ id: string } | undefined>('id');
      if (!row) return null;
      const state = await stateOf(row.id);
      if (!isOfEnvironment(state.intent, environment) || state.confirmation?.operationId !== operationId) return null;
      return { merchantId: state.intent.merchantId, paymentIntentId: row.id };
    },
    async open(environment) {
      const rows = await knex('read.payment_intents')
        .where({ environment })
        .whereIn('status', ['processing', 'requires_action'])
        .whereRaw("object->>'latest_operation' IS NOT NULL")
        .select<{ id: string; merchant_id: string; operation: string }[]>('id', 'merchant_id', knex.raw("object->>'latest_operation' AS operation"));
      return rows.map((r) => ({ merchantId: r.merchant_id, sikaId: r.operation, paymentIntentId: r.id }));
    },
  };
}
