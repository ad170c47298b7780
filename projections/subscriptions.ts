import type { Knex } from 'knex';
import { orderKeys } from '../packages/core/json.js';
import type { Environment } from '../packages/domain/merchant/events.js';
import type { SubscriptionEvent, SubscriptionObject } from '../packages/domain/subscription/events.js';
import type { Projection } from './projection.js';
import { storeSnapshot } from './snapshot.js';

/** read.subscriptions: the public Subscription object as its latest event left it. */
export const subscriptionsProjection: Projection = {
  name: 'subscriptions',
  tables: ['read.subscriptions'],
  migrations: [
    {
      name: 'subscriptions/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.subscriptions (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          status text NOT NULL,
          customer text NOT NULL,
          object json NOT NULL
        );
        CREATE INDEX subscriptions_list ON read.subscriptions (merchant_id, environment, status, seq)`),
    },
  ],
  handles: ['subscription.created', 'subscription.renewed', 'subscription.updated', 'subscription.canceled'],
  async apply(trx, event) {
    const e = event as unknown as SubscriptionEvent;
    if (!('object' in e.data)) return;
    const object = e.data.object;
    const created = e.type === 'subscription.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, customer: object.customer } : null;
    await storeSnapshot(trx, 'read.subscriptions', event, object, created);
  },
};

const SUBSCRIPTION_KEYS: readonly (keyof SubscriptionObject)[] = [
  'id', 'object', 'customer', 'status', 'items', 'current_period_start', 'current_period_end', 'currency', 'cancel_at_period_end',
  'canceled_at', 'trial_end', 'latest_invoice', 'billing_plan', 'days_until_due', 'metadata', 'created', 'livemode',
];

export function renderSubscription(stored: SubscriptionObject): SubscriptionObject {
  return orderKeys({ ...stored, items: stored.items.map((i) => orderKeys(i, ['id', 'price', 'quantity'])) }, SUBSCRIPTION_KEYS);
}

export async function findSubscription(knex: Knex, merchantId: string, environment: Environment, id: string): Promise<SubscriptionObject | undefined> {
  const row = await knex('read.subscriptions').select('object').where({ id, merchant_id: merchantId, environment }).first<{ object: SubscriptionObject } | undefined>();
  return row && renderSubscription(row.object);
}
