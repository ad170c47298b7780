import type { Knex } from 'knex';
import { route, type Family } from '../../../packages/http/routes.js';
import { findLimits } from '../../../projections/risk/index.js';

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

/** GET /api/v1/limits: the limits and holds the platform's risk team set on the merchant (docs/limits.md). */
export function limitsFamily(knex: Knex): Family {
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
          "Each reserve held shows in the balance's `reserved` and as a `reserve_hold` balance transaction whose `available_on` is its release date (`GET /api/v1/balance-transactions?type=reserve_hold`); its release is a `reserve_release`. A merchant no limit was set on has empty maps and nulls (docs/limits.md).",
        ].join('\n'),
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        response: limitsSchema,
        handler: (ctx) => findLimits(knex, ctx.owner.merchantId, ctx.owner.environment),
      }),
    ],
  };
}
