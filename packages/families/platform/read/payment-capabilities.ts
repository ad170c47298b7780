import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { CapabilityScope, PaymentCapabilityEvent, PaymentCapabilityObject } from '../payment-capability/events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.payment_capabilities: each merchant's capabilities as their latest event left them; a deleted one has no row. */
export const paymentCapabilitiesProjection: Projection = {
  name: 'payment_capabilities',
  tables: ['read.payment_capabilities'],
  migrations: [
    {
      name: 'payment_capabilities/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.payment_capabilities', ['country text NOT NULL', 'currency text NOT NULL', 'payment_method_type text NOT NULL', 'operator text'])};
        CREATE INDEX payment_capabilities_list ON read.payment_capabilities (merchant_id, environment, seq);
        CREATE INDEX payment_capabilities_method ON read.payment_capabilities (merchant_id, environment, country, payment_method_type)`),
    },
  ],
  handles: ['payment_capability.created', 'payment_capability.updated', 'payment_capability.suspended', 'payment_capability.resumed', 'payment_capability.deleted'],
  ...rowChangeProjection({ 'read.payment_capabilities': ['id'] }, (event) => {
    const e = event as unknown as PaymentCapabilityEvent;
    const object = e.data.object;
    if (e.type === 'payment_capability.deleted') return [{ table: 'read.payment_capabilities', key: { id: object.id }, delete: true }];
    const created =
      e.type === 'payment_capability.created'
        ? { merchant_id: e.data.merchantId, environment: e.data.environment, country: e.data.country, currency: e.data.currency, payment_method_type: e.data.paymentMethodType, operator: e.data.operator }
        : null;
    return [snapshotChange('read.payment_capabilities', event, object, created)];
  }),
};

const CAPABILITY_KEYS: readonly (keyof PaymentCapabilityObject)[] = ['id', 'object', 'country', 'currency', 'payment_method_type', 'operator', 'is_enabled', 'status', 'suspension_reason', 'created', 'updated', 'livemode'];
const render = (stored: PaymentCapabilityObject) => orderKeys(stored, CAPABILITY_KEYS);

export function findPaymentCapability(knex: Knex, owner: Owner, id: string): Promise<PaymentCapabilityObject | undefined> {
  return findOwnedObject(knex, 'read.payment_capabilities', owner, id, render);
}

export function listPaymentCapabilities(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { country?: string; payment_method_type?: string }): Promise<CursorList<PaymentCapabilityObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.payment_capabilities', owner, filters), cursor, url, render);
}

/** The capability that governs a payment method: the operator's own if there is one, else the method's for every operator. */
export async function governingCapability(knex: Knex, owner: Owner, method: CapabilityScope): Promise<PaymentCapabilityObject | undefined> {
  const row = await ownedRows(knex, 'read.payment_capabilities', owner, { country: method.country, currency: method.currency.toLowerCase(), payment_method_type: method.paymentMethodType })
    .where((q) => {
      if (method.operator) q.where('operator', method.operator).orWhereNull('operator');
      else q.whereNull('operator');
    })
    .orderByRaw('operator IS NULL')
    .select('object')
    .first<{ object: PaymentCapabilityObject } | undefined>();
  return row?.object;
}
