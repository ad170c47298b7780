import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import { destinationKey } from '../payout-method/destination.js';
import type { Destination } from '../payout-method/events.js';
import { payoutPublicEvents } from '../payout/public-events.js';
import type { PayoutEvent, PayoutObject, PayoutStatus } from '../payout/events.js';
import { whereCreated, type CreatedRange, type PageList, type PageQuery } from '#packages/read-models/paging.js';
import { localTimestamp } from '#packages/core/time-zone.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { everyObjectNewestFirst, findOwnedObject, ownedRows, pageOfObjects, snapshotActivity, type Activity } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Environment, Owner } from '#packages/core/owner.js';
import type { ObjectHistory } from '#packages/read-models/object-events.js';

/** read.payouts: the public Payout object, as its latest event left it (json keeps field order). */
export const payoutsProjection: Projection = {
  name: 'payouts',
  tables: ['read.payouts'],
  migrations: [
    {
      name: 'payouts/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.payouts')};
        CREATE INDEX payouts_list ON read.payouts (merchant_id, environment, seq);
        CREATE INDEX payouts_status ON read.payouts (merchant_id, environment, status, seq)`),
    },
    {
      // Where each payout's money goes (destinationKey), for the rule of destinations paid before;
      // the payouts made before are keyed here, with the same function.
      name: 'payouts/002-destination-key',
      up: async (knex) => {
        await knex.raw('ALTER TABLE read.payouts ADD COLUMN destination_key text');
        for (let after = ''; ;) {
          const rows = (await knex('read.payouts').where('id', '>', after).orderBy('id').limit(1000).select('id', knex.raw("object->'destination' AS destination"))) as { id: string; destination: Destination }[];
          if (rows.length === 0) break;
          await knex.raw('UPDATE read.payouts AS p SET destination_key = v.key FROM json_to_recordset(?::json) AS v(id text, key text) WHERE p.id = v.id', [
            JSON.stringify(rows.map((r) => ({ id: r.id, key: destinationKey(r.destination) }))),
          ]);
          after = rows.at(-1)!.id;
        }
        await knex.raw('ALTER TABLE read.payouts ALTER COLUMN destination_key SET NOT NULL; CREATE INDEX payouts_destination ON read.payouts (merchant_id, environment, destination_key)');
      },
    },
    {
      // The operators' queue of payouts held for review, every merchant's (GET /api/v1/operator/payouts/held).
      name: 'payouts/003-held',
      up: (knex) => knex.raw(`CREATE INDEX payouts_held ON read.payouts (environment, seq) WHERE (object->>'review_status') = 'held'`),
    },
  ],
  handles: ['payout.created', 'payout.updated', 'payout.delayed', 'payout.paid', 'payout.failed', 'payout.canceled', 'payout.review_released', 'payout.review_declined'],
  ...rowChangeProjection({ 'read.payouts': ['id'] }, (event) => {
    const e = event as unknown as PayoutEvent;
    const object = e.data.object;
    const created = e.type === 'payout.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, destination_key: destinationKey(e.data.destination) } : null;
    return [snapshotChange('read.payouts', event, object, created)];
  }),
};

const PAYOUT_KEYS: readonly (keyof PayoutObject)[] = [
  'id',
  'object',
  'amount',
  'currency',
  'status',
  'destination',
  'payout_method_id',
  'arrival_date_estimate',
  'expected_by',
  'delay_state',
  'delay_reason',
  'delayed_at',
  'metadata',
  'failure_code',
  'failure_message',
  'fee',
  'created',
  'livemode',
  'provider_reference',
];
const DESTINATION_KEYS = ['type', 'currency', 'country', 'operator', 'msisdn', 'bank_code', 'account_number', 'account_name'] as (keyof Destination)[];

/** A stored payout in the documented field order. */
export function renderPayout(stored: PayoutObject): PayoutObject {
  return orderKeys({ ...stored, destination: orderKeys(stored.destination, DESTINATION_KEYS) }, PAYOUT_KEYS);
}

/** Payouts keep their history (GET /api/v1/payouts/{id}/events, read.object_events). */
export const payoutHistory: ObjectHistory = { object: 'payout', events: payoutPublicEvents.types.map((e) => e.type), render: (stored) => renderPayout(stored as PayoutObject) };

export function findPayout(knex: Knex, owner: Owner, id: string): Promise<PayoutObject | undefined> {
  return findOwnedObject(knex, 'read.payouts', owner, id, renderPayout);
}

/** What the payouts' list and export narrow to: a status, a review status, a period of `created`. */
export interface PayoutFilters {
  status?: PayoutStatus | undefined;
  reviewStatus?: ReviewStatus | undefined;
  created?: CreatedRange;
}

type ReviewStatus = NonNullable<PayoutObject['review_status']>;

/** A page of this owner's payouts, newest first. */
export function listPayouts(knex: Knex, owner: Owner, page: PageQuery, filters: PayoutFilters): Promise<PageList<PayoutObject>> {
  return pageOfObjects(payoutRows(knex, owner, filters), page, renderPayout);
}

function payoutRows(knex: Knex, owner: Owner, filters: PayoutFilters): Knex.QueryBuilder {
  const q = ownedRows(knex, 'read.payouts', owner, { status: filters.status });
  if (filters.reviewStatus) q.whereRaw(`(object->>'review_status') = ?`, [filters.reviewStatus]);
  if (filters.created) whereCreated(q, knex.raw(`to_timestamp((object->>'created')::bigint)`), filters.created);
  return q;
}

/** A payout held for review as the operators' queue shows it: whose it is, and the payout. */
export interface HeldPayout {
  object: 'held_payout';
  merchant_id: string;
  payout: PayoutObject;
}

/** Every merchant's payouts held for review in this environment, oldest first (they have waited longest), page by page. */
export async function listHeldPayouts(knex: Knex, environment: Environment, page: PageQuery): Promise<PageList<HeldPayout>> {
  const held = knex('read.payouts').where({ environment }).whereRaw(`(object->>'review_status') = 'held'`);
  const [count] = await held.clone().count<{ count: string }[]>('* as count');
  const total = Number(count?.count ?? 0);
  const rows = (await held
    .clone()
    .select('merchant_id', 'object')
    .orderBy('seq', 'asc')
    .offset((page.page - 1) * page.limit)
    .limit(page.limit)) as { merchant_id: string; object: PayoutObject }[];
  const data = rows.map((r): HeldPayout => ({ object: 'held_payout', merchant_id: r.merchant_id, payout: renderPayout(r.object) }));
  return { object: 'list', data, page: page.page, limit: page.limit, total, has_more: page.page * page.limit < total };
}

/** The columns of the payouts' CSV export: the list's, with ids and the operator's reference. */
export const PAYOUT_CSV_COLUMNS = ['id', 'created', 'recipient', 'operator', 'number', 'amount', 'currency', 'fee', 'status', 'failure_code', 'failure_message', 'provider_reference'] as const;

/**
 * Every payout of this owner with `filters.status` created within `filters.created`, newest first,
 * as the CSV export's records: `created` in `timeZone`; a bank account's holder as its recipient.
 */
export async function* payoutRecords(knex: Knex, owner: Owner, filters: PayoutFilters, timeZone: string): AsyncGenerator<Record<(typeof PAYOUT_CSV_COLUMNS)[number], string | number | null>> {
  for await (const p of everyObjectNewestFirst(payoutRows(knex, owner, filters), renderPayout)) {
    const d = p.destination;
    yield {
      id: p.id,
      created: localTimestamp(new Date(p.created * 1000), timeZone),
      recipient: d.type === 'bank' ? d.account_name : d.msisdn,
      operator: d.type === 'bank' ? d.bank_code : d.operator,
      number: d.type === 'bank' ? d.account_number : d.msisdn,
      amount: p.amount,
      currency: p.currency,
      fee: p.fee,
      status: p.status,
      failure_code: p.failure_code,
      failure_message: p.failure_message,
      provider_reference: p.provider_reference ?? null,
    };
  }
}

/** Payouts whose money may be on its way or arrived: a failed or canceled one paid nothing. */
const PAYING: readonly PayoutStatus[] = ['pending', 'in_transit', 'paid'];

/**
 * Whether this owner has a payout pending, in transit or paid to this destination (destinationKey):
 * the destinations it paid before (docs/decisions.md, "Payouts"). Read where the payouts' commits
 * write it (an inline read model), so a payout just made counts at once.
 */
export async function hasPaidTo(knex: Knex, owner: Owner, destination: Destination): Promise<boolean> {
  const row = await ownedRows(knex, 'read.payouts', owner)
    .where({ destination_key: destinationKey(destination) })
    .whereIn('status', PAYING)
    .first('id');
  return row !== undefined;
}

/** Of these destinations, those this owner never paid (hasPaidTo false for each): one read per thousand of them. */
export async function neverPaid(knex: Knex, owner: Owner, destinations: readonly Destination[]): Promise<Destination[]> {
  const keys = [...new Set(destinations.map(destinationKey))];
  const paid = new Set<string>();
  for (let from = 0; from < keys.length; from += 1000) {
    const rows = await ownedRows(knex, 'read.payouts', owner)
      .whereIn('destination_key', keys.slice(from, from + 1000))
      .whereIn('status', PAYING)
      .distinct<{ destination_key: string }[]>('destination_key');
    for (const r of rows) paid.add(r.destination_key);
  }
  return destinations.filter((d) => !paid.has(destinationKey(d)));
}

/** The merchant's payouts in this environment: how many, paid, failed, the last made (an operator's review of its integration). */
export function payoutActivity(knex: Knex, owner: Owner): Promise<Activity> {
  return snapshotActivity(knex, 'read.payouts', owner, { succeeded: 'paid', failed: 'failed' });
}
