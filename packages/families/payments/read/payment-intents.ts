import type { Knex } from 'knex';
import { PAYMENT_INTENT_OBJECT_EVENTS, type PaymentIntentEvent, type PaymentIntentObject, type PaymentIntentStatus } from '../payment-intent/events.js';
import { orderKeys } from '#packages/core/json.js';
import { whereCreated, type CreatedRange, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, everyObjectNewestFirst, findOwnedObject, ownedRows, snapshotActivity, type Activity } from '#packages/read-models/queries.js';
import { localTimestamp } from '#packages/core/time-zone.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Environment, Owner } from '#packages/core/owner.js';
import type { ObjectHistory } from '#packages/read-models/object-events.js';

/** read.payment_intents: the public object of every intent, as its latest event left it (json, not jsonb, to keep field order). */
export const paymentIntentsProjection: Projection = {
  name: 'payment_intents',
  tables: ['read.payment_intents'],
  migrations: [
    {
      name: 'payment_intents/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.payment_intents', ['customer text'])};
        CREATE INDEX payment_intents_list ON read.payment_intents (merchant_id, environment, seq)`),
    },
    {
      // A rail's news may name a payment by its operation alone (NewsDesk.recheckCollectionOf, packages/connectors/news-desk.ts).
      name: 'payment_intents/002-latest-operation',
      up: (knex) => knex.raw(`CREATE INDEX payment_intents_latest_operation ON read.payment_intents ((object->>'latest_operation'))`),
    },
  ],
  handles: PAYMENT_INTENT_OBJECT_EVENTS,
  ...rowChangeProjection({ 'read.payment_intents': ['id'] }, (event) => {
    const e = event as unknown as PaymentIntentEvent;
    if (!('object' in e.data)) return [];
    const object = e.data.object;
    const created = e.type === 'payment_intent.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, customer: object.customer } : null;
    return [snapshotChange('read.payment_intents', event, object, created)];
  }),
};

const PAYMENT_INTENT_KEYS: readonly (keyof PaymentIntentObject)[] = [
  'id',
  'object',
  'created',
  'livemode',
  'amount',
  'currency',
  'status',
  'description',
  'metadata',
  'next_action',
  'customer',
  'transaction_country',
  'payer_country',
  'rail_country',
  'payment_method',
  'last_payment_error',
  'latest_operation',
  'return_url',
  'amount_received',
  'fee',
  'cancellation_reason',
  'canceled_at',
  'provider_reference',
];

/** A stored payment intent in the documented field order. */
export function renderPaymentIntent(stored: PaymentIntentObject): PaymentIntentObject {
  return orderKeys(stored, PAYMENT_INTENT_KEYS);
}

/** Payment intents keep their history (GET /api/v1/payment-intents/{id}/events, read.object_events). */
export const paymentIntentHistory: ObjectHistory = { object: 'payment_intent', events: PAYMENT_INTENT_OBJECT_EVENTS, render: (stored) => renderPaymentIntent(stored as PaymentIntentObject) };

export function findPaymentIntent(knex: Knex, owner: Owner, id: string): Promise<PaymentIntentObject | undefined> {
  return findOwnedObject(knex, 'read.payment_intents', owner, id, renderPaymentIntent);
}

export interface PaymentIntentFilters {
  customer?: string;
  /** Any of these statuses. */
  status?: PaymentIntentStatus[];
  created?: CreatedRange;
  /** Bounds on `amount`, inclusive, in minor units. */
  amount?: { gte?: number; lte?: number };
  /** An intent's id, its customer's, its operation's or the operator's reference, exactly; words of its description (case-insensitive); the last digits of the number that paid; the customer's e-mail. */
  search?: string;
}

/** This owner's payment intents, newest first, cursor-paged, narrowed by `filters`. */
export function listPaymentIntents(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: PaymentIntentFilters): Promise<CursorList<PaymentIntentObject>> {
  return cursorPageOfObjects(paymentIntentRows(knex, owner, filters), cursor, url, renderPaymentIntent);
}

/** The columns of the payments' CSV export: the list's, with ids, the method and the operator's references. */
export const PAYMENT_INTENT_CSV_COLUMNS = ['id', 'created', 'description', 'customer', 'amount', 'currency', 'fee', 'status', 'failure_code', 'failure_message', 'method', 'operator', 'number', 'operation', 'provider_reference'] as const;

/**
 * Every payment intent `listPaymentIntents` would list with `filters`, newest first, as the CSV
 * export's records: `created` in `timeZone`, amounts in minor units, a card's brand as its operator.
 */
export async function* paymentIntentRecords(knex: Knex, owner: Owner, filters: PaymentIntentFilters, timeZone: string): AsyncGenerator<Record<(typeof PAYMENT_INTENT_CSV_COLUMNS)[number], string | number | null>> {
  for await (const p of everyObjectNewestFirst(paymentIntentRows(knex, owner, filters), renderPaymentIntent)) {
    const method = p.payment_method;
    yield {
      id: p.id,
      created: localTimestamp(new Date(p.created * 1000), timeZone),
      description: p.description,
      customer: p.customer,
      amount: p.amount,
      currency: p.currency,
      fee: p.fee,
      status: p.status,
      failure_code: p.last_payment_error?.code ?? null,
      failure_message: p.last_payment_error?.message ?? null,
      method: method?.type ?? null,
      operator: method?.type === 'mobile_money' ? method.mobile_money.operator : method?.type === 'card' ? method.card.brand : null,
      number: method?.type === 'mobile_money' ? method.mobile_money.msisdn : method?.type === 'card' ? `••••${method.card.last4}` : null,
      operation: p.latest_operation,
      provider_reference: p.provider_reference ?? null,
    };
  }
}

/** This owner's payment intents narrowed by `filters` (the list's and the export's query). */
function paymentIntentRows(knex: Knex, owner: Owner, filters: PaymentIntentFilters): Knex.QueryBuilder {
  const q = ownedRows(knex, 'read.payment_intents', owner, { customer: filters.customer });
  if (filters.status?.length) q.whereIn('status', filters.status);
  // `created` and `amount` are read from the stored object: the list index narrows to the owner first.
  if (filters.created) whereCreated(q, knex.raw(`to_timestamp((object->>'created')::bigint)`), filters.created);
  if (filters.amount?.gte !== undefined) q.whereRaw(`(object->>'amount')::bigint >= ?`, [filters.amount.gte]);
  if (filters.amount?.lte !== undefined) q.whereRaw(`(object->>'amount')::bigint <= ?`, [filters.amount.lte]);
  const search = filters.search?.trim();
  if (search) {
    const words = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // What a payer's receipt or the payer gives: the operation's or the operator's reference, the
    // number's last digits (3 or more), the customer's e-mail address.
    const digits = /^\+?[\d ]{3,20}$/.test(search) ? search.replace(/\D/g, '') : null;
    q.where((w) => {
      w.where('id', search).orWhere('customer', search).orWhereRaw(`object->>'description' ILIKE ?`, [words]).orWhereRaw(`object->>'latest_operation' = ?`, [search]).orWhereRaw(`object->>'provider_reference' = ?`, [search]);
      const customers = () => knex('read.customers').select('id').where({ merchant_id: owner.merchantId, environment: owner.environment });
      if (digits && digits.length >= 3) {
        // The stored number that paid keeps only its last four digits (••••4567): those are compared.
        w.orWhereRaw(`object->'payment_method'->'mobile_money'->>'msisdn' LIKE ?`, [`%${digits.slice(-4)}`]);
        // The customer's number (E.164) is whole: it ends with every digit typed.
        w.orWhereIn('customer', customers().whereRaw(`regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g') LIKE ?`, [`%${digits}`]));
      }
      if (search.includes('@')) w.orWhereIn('customer', customers().whereRaw('lower(email) = lower(?)', [search]));
    });
  }
  return q;
}

/** The merchant a payment intent belongs to, whoever asks (for provider callbacks, which carry no credential). */
export async function paymentIntentMerchant(knex: Knex, id: string): Promise<string | undefined> {
  const row = await knex('read.payment_intents').select('merchant_id').where({ id }).first<{ merchant_id: string } | undefined>();
  return row?.merchant_id;
}

/** Why a payment intent last failed (`last_payment_error.code`), whoever asks (the public status page); null when it has not. */
export async function paymentFailureCode(knex: Knex, id: string): Promise<string | null> {
  const row = await knex('read.payment_intents').select(knex.raw("object->'last_payment_error'->>'code' as code")).where({ id }).first<{ code: string | null } | undefined>();
  return row?.code ?? null;
}

/** Whether the merchant has taken a payment in this environment (the onboarding checklist). */
export async function hasSucceededPayment(knex: Knex, merchantId: string, environment: Environment): Promise<boolean> {
  return (await knex('read.payment_intents').where({ merchant_id: merchantId, environment, status: 'succeeded' }).first('id')) !== undefined;
}

/** The merchant's payment intents in this environment: how many, succeeded, failed, the last made (an operator's review of its integration). */
export function paymentActivity(knex: Knex, owner: Owner): Promise<Activity> {
  return snapshotActivity(knex, 'read.payment_intents', owner, { succeeded: 'succeeded', failed: 'failed' });
}
