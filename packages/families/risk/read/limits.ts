import type { Knex } from 'knex';
import type { Environment, Owner } from '#packages/core/owner.js';
import { noLimits } from '../limits/decider.js';
import type { Limits, LimitsEvent, LimitsObject } from '../limits/events.js';
import { toLimitsObject } from '../limits/render.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';

/** read.merchant_limits: the limits and holds of each merchant and environment an operator ever set, one row each. */
export const merchantLimitsProjection: Projection = {
  name: 'merchant_limits',
  tables: ['read.merchant_limits'],
  migrations: [
    {
      name: 'merchant_limits/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.merchant_limits (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          payouts_frozen boolean NOT NULL,
          object json NOT NULL,
          PRIMARY KEY (merchant_id, environment)
        );
        CREATE INDEX merchant_limits_frozen ON read.merchant_limits (payouts_frozen) WHERE payouts_frozen`),
    },
  ],
  handles: ['merchant_limits.amounts_set', 'merchant_limits.payouts_frozen', 'merchant_limits.payouts_unfrozen', 'merchant_limits.reserve_set'],
  async apply(trx, event) {
    const { merchantId, environment, object } = (event as unknown as LimitsEvent).data;
    await trx('read.merchant_limits')
      .insert({ merchant_id: merchantId, environment, payouts_frozen: object.payoutFreeze !== null, object: JSON.stringify(object) })
      .onConflict(['merchant_id', 'environment'])
      .merge();
  },
};

/** The limits object back into the limits commands read (the times in whole seconds, as stored). */
function limitsFrom(o: LimitsObject): Limits {
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  return {
    merchantId: o.merchantId,
    environment: o.environment,
    transactionMaximums: o.transactionMaximums,
    dailyPayoutCaps: o.dailyPayoutCaps,
    payoutFreeze: o.payoutFreeze ? { reason: o.payoutFreeze.reason, since: iso(o.payoutFreeze.since) } : null,
    rollingReserve: o.rollingReserve,
    updatedAt: o.updated === null ? null : iso(o.updated),
  };
}

/** The limits of a merchant in an environment, as payments and payouts decide them: none set is no limit. */
export async function limitsOf(knex: Knex, merchantId: string, environment: Environment): Promise<Limits> {
  const row = (await knex('read.merchant_limits').where({ merchant_id: merchantId, environment }).first('object')) as { object: LimitsObject } | undefined;
  return row ? limitsFrom(row.object) : noLimits(merchantId, environment);
}

/** The limits object a merchant reads (GET /api/v1/limits) and an operator's console shows. */
export async function findLimits(knex: Knex, merchantId: string, environment: Environment): Promise<LimitsObject> {
  return toLimitsObject(await limitsOf(knex, merchantId, environment));
}

/** Every merchant with limits or holds set (for the operators), the frozen ones only with `payoutsFrozen`, by merchant then environment. */
export async function listMerchantLimits(knex: Knex, filter: { payoutsFrozen?: boolean; environment?: Environment } = {}): Promise<LimitsObject[]> {
  const q = knex('read.merchant_limits').select('object').orderBy(['merchant_id', 'environment']);
  if (filter.payoutsFrozen !== undefined) q.where('payouts_frozen', filter.payoutsFrozen);
  if (filter.environment !== undefined) q.where('environment', filter.environment);
  return ((await q) as { object: LimitsObject }[]).map((r) => r.object);
}

/** One payment's rolling reserve still held in `reserved` (a `reserve_hold` balance transaction not yet released). */
export interface ReserveHeld {
  paymentIntent: string;
  amount: number;
  currency: string;
  releasesAt: Date;
}

/**
 * The reserves a merchant's balance holds now: the total per currency, and the `limit` released
 * soonest, each with its payment and release date (read from read.balance_transactions).
 */
export async function reservesHeld(knex: Knex, owner: Owner, limit: number): Promise<{ totals: Record<string, number>; soonest: ReserveHeld[] }> {
  const held = () => ownedRows(knex, 'read.balance_transactions', owner, { type: 'reserve_hold', status: 'pending' });
  const totals = (await held().select('currency').sum({ amount: 'amount' }).groupBy('currency').orderBy('currency')) as { currency: string; amount: string }[];
  const rows = (await held()
    .select('source', 'amount', 'currency', 'available_on')
    .orderBy([{ column: 'available_on' }, { column: 'id' }])
    .limit(limit)) as { source: string; amount: string; currency: string; available_on: Date }[];
  return {
    // A hold is negative on the balance transactions (money taken from `pending`): held, it is positive.
    totals: Object.fromEntries(totals.map((t) => [t.currency, -Number(t.amount)])),
    soonest: rows.map((r) => ({ paymentIntent: r.source, amount: -Number(r.amount), currency: r.currency, releasesAt: r.available_on })),
  };
}
