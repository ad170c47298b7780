import type { Knex } from 'knex';
import type { Owner } from '../../../packages/core/owner.js';
import type { MerchantLimits } from '../../../packages/families/risk/index.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findLimits, reservesHeld } from '../../../projections/risk/index.js';

/** How many held reserves the limits list, soonest released first (the totals count them all). */
const RESERVES_LISTED = 100;

const perCurrency = (what: string) => ({
  type: 'object',
  description: what,
  additionalProperties: { type: 'integer', description: 'The amount, in minor units of the currency named by the key (lower case)' },
});

/** The limits object (docs/limits.md): what the merchant reads and the operators' routes answer. */
export const limitsSchema = {
  type: 'object',
  properties: {
    object: { const: 'limits', description: 'The kind of object: always `limits`' },
    merchantId: { type: 'string', description: 'The merchant they apply to' },
    environment: { enum: ['sandbox', 'live'], description: 'The environment they apply to', 'x-enumDescriptions': { sandbox: 'The sandbox', live: 'Live' } },
    transactionMaximums: perCurrency('The largest amount of one payment or one payout, per currency (a batch: of each item); a currency not listed has none'),
    dailyPayoutCaps: perCurrency("The most the day's payouts may add up to (00:00 to 24:00 UTC), per currency; payouts count from their creation unless they fail or are canceled; a currency not listed has none"),
    payoutFreeze: {
      type: ['object', 'null'],
      description: 'Set while payouts are frozen: every payout and batch execution is refused; null otherwise',
      properties: {
        reason: { type: 'string', description: "The risk team's reason, for the merchant" },
        since: { type: 'integer', description: 'When payouts were frozen (Unix seconds)' },
      },
    },
    rollingReserve: {
      type: ['object', 'null'],
      description: "The share of each payment's net held in `reserved`, and for how long; null when none",
      properties: {
        percent: { type: 'number', description: "The percentage of each payment's net (after fees) held, rounded down to the minor unit" },
        days: { type: 'integer', description: 'How many days after the payment its reserve is released to `available`' },
      },
    },
    updated: { type: ['integer', 'null'], description: 'When the risk team last changed them (Unix seconds); null when never' },
  },
};

/** The reserves a merchant's balance holds now, as the merchant's and the operators' views of its limits give them. */
export const reservesHeldSchema = {
  type: 'object',
  description: "The rolling reserves of past payments the merchant's balance holds now (in its `reserved`), each released to `available` at its date",
  properties: {
    totals: { type: 'object', description: 'The total held, per currency (lower case), in minor units', additionalProperties: { type: 'integer', description: 'The amount held, in minor units' } },
    soonest: {
      type: 'array',
      description: `The reserves released soonest (up to ${RESERVES_LISTED}), each with its payment and release date`,
      items: {
        type: 'object',
        properties: {
          paymentIntent: { type: 'string', description: 'The payment whose reserve it is (`pi_…`)' },
          amount: { type: 'integer', description: 'The amount held, in minor units' },
          currency: { type: 'string', description: 'The currency, lower case' },
          releasesAt: { type: 'string', format: 'date-time', description: 'When it is released to `available` (ISO 8601); a refund of the payment releases it earlier' },
        },
      },
    },
  },
};

/** The reserves the owner's balance holds now, the soonest released listed (reservesHeldSchema). */
export async function reservesHeldOf(knex: Knex, owner: Owner) {
  const held = await reservesHeld(knex, owner, RESERVES_LISTED);
  return { totals: held.totals, soonest: held.soonest.map((r) => ({ ...r, releasesAt: r.releasesAt.toISOString() })) };
}

/** GET /api/v1/limits: the limits and holds the platform's risk team set on the merchant (docs/limits.md). */
export function limitsFamily(knex: Knex, limits: MerchantLimits): Family {
  return {
    name: 'limits',
    description: "The limits and holds the platform's risk team set on the merchant in each environment: per-transaction maximums, daily payout caps, a payout freeze and a rolling reserve.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/limits',
        summary: 'The limits and holds that apply to the merchant in the environment',
        description: [
          "What the platform's risk team set on the merchant in this environment (the other environment's are apart): the per-transaction maximum of payments and payouts per currency (above it: `IKW-LIM-003`), the daily cap of payouts per currency (above it: `IKW-LIM-004` with `Retry-After`, the seconds to 00:00 UTC), whether payouts are frozen and why (`IKW-LIM-005`; payments are still taken), and the rolling reserve held from each payment.",
          '',
          "With them, what today's payouts add up to in each currency of a daily cap (`payoutsToday`, counted as the cap counts them), and the reserves the balance holds now with their release dates (`reservesHeld`). Each reserve held shows in the balance's `reserved` and as a `reserve_hold` balance transaction whose `available_on` is its release date (`GET /api/v1/balance-transactions?type=reserve_hold`); its release is a `reserve_release`. A merchant no limit was set on has empty maps and nulls (docs/limits.md).",
        ].join('\n'),
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        response: {
          ...limitsSchema,
          properties: {
            ...limitsSchema.properties,
            payoutsToday: perCurrency("What today's payouts (00:00 UTC to now) add up to, per currency of a daily cap, as the cap counts them: from their creation, less those failed or canceled, fees aside; the cap less it is what may still be paid out today"),
            reservesHeld: reservesHeldSchema,
          },
        },
        handler: async (ctx) => {
          const limitsNow = await findLimits(knex, ctx.owner.merchantId, ctx.owner.environment);
          return {
            ...limitsNow,
            payoutsToday: await limits.payoutsToday(ctx.owner, Object.keys(limitsNow.dailyPayoutCaps)),
            reservesHeld: await reservesHeldOf(knex, ctx.owner),
          };
        },
      }),
    ],
  };
}
