import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { SubscriptionEvent, SubscriptionObject, SubscriptionStatus } from '../subscription/events.js';
import type { CursorList, CursorQuery, PageList, PageQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows, pageOfObjects } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.subscriptions: the public Subscription object as its latest event left it. */
export const subscriptionsProjection: Projection = {
  name: 'subscriptions',
  tables: ['read.subscriptions'],
  migrations: [
    {
      name: 'subscriptions/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.subscriptions', ['customer text NOT NULL'])};
        CREATE INDEX subscriptions_list ON read.subscriptions (merchant_id, environment, status, seq)`),
    },
  ],
  handles: ['subscription.created', 'subscription.renewed', 'subscription.updated', 'subscription.canceled'],
  ...rowChangeProjection({ 'read.subscriptions': ['id'] }, (event) => {
    const e = event as unknown as SubscriptionEvent;
    if (!('object' in e.data)) return [];
    const object = e.data.object;
    const created = e.type === 'subscription.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, customer: object.customer } : null;
    return [snapshotChange('read.subscriptions', event, object, created)];
  }),
};

const SUBSCRIPTION_KEYS: readonly (keyof SubscriptionObject)[] = [
  'id',
  'object',
  'customer',
  'status',
  'items',
  'current_period_start',
  'current_period_end',
  'currency',
  'cancel_at_period_end',
  'canceled_at',
  'trial_end',
  'latest_invoice',
  'billing_plan',
  'days_until_due',
  'metadata',
  'created',
  'livemode',
];

export function renderSubscription(stored: SubscriptionObject): SubscriptionObject {
  return orderKeys({ ...stored, items: stored.items.map((i) => orderKeys(i, ['id', 'price', 'quantity'])) }, SUBSCRIPTION_KEYS);
}

export function findSubscription(knex: Knex, owner: Owner, id: string): Promise<SubscriptionObject | undefined> {
  return findOwnedObject(knex, 'read.subscriptions', owner, id, renderSubscription);
}

/** A page of this owner's subscriptions, newest first, by status and customer. */
export function listSubscriptions(knex: Knex, owner: Owner, page: PageQuery, filters: { status?: SubscriptionStatus; customer?: string }): Promise<PageList<SubscriptionObject>> {
  return pageOfObjects(ownedRows(knex, 'read.subscriptions', owner, { status: filters.status, customer: filters.customer }), page, renderSubscription);
}

export interface SubscriptionCursorFilters {
  status?: SubscriptionStatus;
  customer?: string;
  billingPlan?: string;
}

/** This owner's subscriptions, cursor-paged, newest first (the billing family's list). */
export function listSubscriptionsByCursor(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: SubscriptionCursorFilters): Promise<CursorList<SubscriptionObject>> {
  const query = ownedRows(knex, 'read.subscriptions', owner, { status: filters.status, customer: filters.customer });
  if (filters.billingPlan) query.whereRaw(`object->>'billing_plan' = ?`, [filters.billingPlan]);
  return cursorPageOfObjects(query, cursor, url, renderSubscription);
}
