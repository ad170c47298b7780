import type { Knex } from 'knex';
import { ENVIRONMENTS, type Environment, type Owner } from '#packages/core/owner.js';
import type { MerchantLimits, PerCurrency } from '#packages/families/risk/index.js';
import type { HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { findLimits, listMerchantLimits } from '#packages/families/risk/read/index.js';
import { limitsSchema, reservesHeldOf, reservesHeldSchema } from '#packages/families/risk/http/index.js';
import { listSchema } from '#packages/http/route-kit.js';
import { anyOperator, merchantOwnerOf, merchantParams, operatorOf } from './shared.js';

const READ = anyOperator('operator.limits.read');
const RISK: RouteAuth = { scope: 'operator.limits', operator: ['risk'] };
const REFUSALS = ['IKW-RES-001', 'IKW-LIM-006'] as const;

const environmentSchema = {
  enum: [...ENVIRONMENTS],
  description: 'The environment: `live` (default) or `sandbox`',
  'x-enumDescriptions': { live: "Live: the merchant's real money", sandbox: "The sandbox: the merchant's test money (its limits never apply to live)" },
};
const environmentQuery = { type: 'object', additionalProperties: false, properties: { environment: environmentSchema } };
const amountsSchema = (what: string) => ({
  type: 'object',
  description: `${what}, per currency: \`{ "xof": 500000 }\`; a currency left out has none`,
  maxProperties: 200,
  propertyNames: { minLength: 3, maxLength: 3 },
  additionalProperties: { type: 'integer', minimum: 1, description: 'The amount, in minor units of the currency named by the key (any case)' },
});
const reasonSchema = { type: 'string', minLength: 1, maxLength: 500, description: 'Why, in words the merchant reads: every refused payout shows it' };

/** The limits with the reserves held: the operator's view of one merchant and environment. */
export const merchantLimitsSchema = { ...limitsSchema, properties: { ...limitsSchema.properties, reservesHeld: reservesHeldSchema } };

const actorOf = (ctx: Pick<HandlerContext, 'principal'>) => ({ actor: `operator:${operatorOf(ctx).operatorId}` });

/** The merchant's limits with the reserves its balance holds (the operator's view of one merchant and environment). */
export async function merchantLimitsOf(knex: Knex, owner: Owner) {
  return { ...(await findLimits(knex, owner.merchantId, owner.environment)), reservesHeld: await reservesHeldOf(knex, owner) };
}

/**
 * /api/v1/operator/merchants/:merchantId/limits and /api/v1/operator/limits (docs/operator.md,
 * "Limits and holds"): the risk team's limits and holds per merchant and environment, over the
 * risk family's use cases (docs/limits.md); every operator reads them, risk (and admin) changes them.
 */
export function operatorLimitsRoutes(knex: Knex, limits: MerchantLimits): RouteGroup {
  const BASE = '/api/v1/operator/merchants/:merchantId/limits';
  return {
    name: 'operator-limits',
    description: "The risk team's limits and holds on merchants: per-transaction maximums, daily payout caps, payout freezes and rolling reserves, per merchant and environment.",
    routes: [
      route<unknown, { environment?: Environment }, { merchantId: string }>({
        method: 'get',
        path: BASE,
        summary: "A merchant's limits and holds in an environment, with the reserves its balance holds",
        description:
          'What the merchant reads at `GET /api/v1/limits` (per-transaction maximums, daily payout caps, the payout freeze and its reason, the rolling reserve), and the reserves of past payments its balance holds now with their release dates. A merchant no limit was set on has empty maps and nulls. An unknown merchant is `IKW-RES-001`.',
        refusals: ['IKW-RES-001'],
        auth: READ,
        params: merchantParams,
        query: environmentQuery,
        response: merchantLimitsSchema,
        handler: async (ctx) => merchantLimitsOf(knex, await merchantOwnerOf(knex, ctx.params.merchantId, ctx.query.environment)),
      }),
      route<{ transactionMaximums: PerCurrency; dailyPayoutCaps: PerCurrency; environment?: Environment }, unknown, { merchantId: string }>({
        method: 'put',
        path: BASE,
        summary: "Set a merchant's per-transaction maximums and daily payout caps per currency",
        description:
          "Replaces both maps: a payment or payout above its currency's maximum is refused with `IKW-LIM-003`, a payout taking the day's payouts (00:00 to 24:00 UTC) above its currency's cap with `IKW-LIM-004` and `Retry-After`. A currency left out has no limit; `{}` removes them all. Takes effect with the merchant's next payment or payout. Recorded with you as its actor (`merchant_limits.amounts_set`). An unknown currency is `IKW-LIM-006`.",
        refusals: REFUSALS,
        auth: RISK,
        params: merchantParams,
        body: {
          type: 'object',
          required: ['transactionMaximums', 'dailyPayoutCaps'],
          additionalProperties: false,
          properties: {
            transactionMaximums: amountsSchema('The largest amount of one payment or one payout (of each item of a batch)'),
            dailyPayoutCaps: amountsSchema("The most a day's payouts may add up to"),
            environment: environmentSchema,
          },
        },
        response: limitsSchema,
        handler: async (ctx) => {
          const { transactionMaximums, dailyPayoutCaps, environment } = ctx.body;
          return limits.setAmounts(await merchantOwnerOf(knex, ctx.params.merchantId, environment), { transactionMaximums, dailyPayoutCaps }, actorOf(ctx));
        },
      }),
      route<{ reason: string; environment?: Environment }, unknown, { merchantId: string }>({
        method: 'post',
        path: `${BASE}/payout-freeze`,
        summary: "Freeze a merchant's payouts, with a reason the merchant reads; payments are still taken",
        description:
          "From now on every payout of the merchant in the environment (the API's, the dashboard's, a batch's execution, an escrow release or a seller's payout) is refused with `IKW-LIM-005` and your reason; payments, refunds and settlements go on. Freezing again changes the reason and keeps the date. Recorded with you as its actor (`merchant_limits.payouts_frozen`).",
        refusals: REFUSALS,
        auth: RISK,
        params: merchantParams,
        body: { type: 'object', required: ['reason'], additionalProperties: false, properties: { reason: reasonSchema, environment: environmentSchema } },
        response: limitsSchema,
        handler: async (ctx) => limits.freezePayouts(await merchantOwnerOf(knex, ctx.params.merchantId, ctx.body.environment), ctx.body.reason, actorOf(ctx)),
      }),
      route<{ environment?: Environment }, unknown, { merchantId: string }>({
        method: 'post',
        path: `${BASE}/payout-freeze/lift`,
        summary: "Lift a merchant's payout freeze: payouts pass again",
        description:
          'Payouts pass again from now on (their other limits still apply). Recorded with you as its actor (`merchant_limits.payouts_unfrozen`); lifting where payouts are not frozen changes and records nothing. An unknown merchant is `IKW-RES-001`.',
        refusals: ['IKW-RES-001'],
        auth: RISK,
        params: merchantParams,
        body: { type: 'object', additionalProperties: false, properties: { environment: environmentSchema } },
        response: limitsSchema,
        handler: async (ctx) => limits.unfreezePayouts(await merchantOwnerOf(knex, ctx.params.merchantId, ctx.body?.environment), actorOf(ctx)),
      }),
      route<{ percent: number; days: number; environment?: Environment }, unknown, { merchantId: string }>({
        method: 'post',
        path: `${BASE}/rolling-reserve`,
        summary: "Set a merchant's rolling reserve: a percentage of each payment held in `reserved` for some days",
        description:
          "From now on `percent` of each payment's net (after fees), rounded down to the minor unit, is held in the balance's `reserved` when the payment succeeds and released to `available` `days` days later (docs/limits.md). Reserves already held keep their amount and date. Replaces the reserve there was. Recorded with you as its actor (`merchant_limits.reserve_set`). A percentage not above 0 and at most 100 in hundredths, or days not 1 to 365, is `IKW-LIM-006`.",
        refusals: REFUSALS,
        auth: RISK,
        params: merchantParams,
        body: {
          type: 'object',
          required: ['percent', 'days'],
          additionalProperties: false,
          properties: {
            percent: { type: 'number', description: "The percentage of each payment's net held: above 0, at most 100, in hundredths at most (`7.5`)" },
            days: { type: 'integer', description: 'How many days each reserve is held: 1 to 365' },
            environment: environmentSchema,
          },
        },
        response: limitsSchema,
        handler: async (ctx) => limits.setReserve(await merchantOwnerOf(knex, ctx.params.merchantId, ctx.body.environment), { percent: ctx.body.percent, days: ctx.body.days }, actorOf(ctx)),
      }),
      route<unknown, { environment?: Environment }, { merchantId: string }>({
        method: 'delete',
        path: `${BASE}/rolling-reserve`,
        summary: "Remove a merchant's rolling reserve: payments from now on are not reserved",
        description: 'Payments from now on hold no reserve; reserves already held are released at their dates as before. Recorded with you as its actor (`merchant_limits.reserve_set` with no reserve). An unknown merchant is `IKW-RES-001`.',
        refusals: ['IKW-RES-001'],
        auth: RISK,
        params: merchantParams,
        query: environmentQuery,
        response: limitsSchema,
        handler: async (ctx) => limits.setReserve(await merchantOwnerOf(knex, ctx.params.merchantId, ctx.query.environment), null, actorOf(ctx)),
      }),
      route<unknown, { payouts_frozen?: boolean; environment?: Environment }>({
        method: 'get',
        path: '/api/v1/operator/limits',
        summary: 'Every merchant with limits or holds, or only those whose payouts are frozen: the risk overview',
        description:
          'One entry per merchant and environment a risk operator ever set limits or holds on (a merchant never limited is not listed), by merchant then environment; `payouts_frozen=true` keeps those whose payouts are frozen now, `environment` one environment.',
        auth: READ,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            payouts_frozen: { type: 'boolean', description: '`true`: only the merchants whose payouts are frozen; `false`: only those whose are not' },
            environment: { ...environmentSchema, description: 'Only this environment (both when left out)' },
          },
        },
        response: listSchema(limitsSchema),
        handler: async (ctx) => {
          const { payouts_frozen, environment } = ctx.query;
          return { object: 'list', data: await listMerchantLimits(knex, { ...(payouts_frozen !== undefined ? { payoutsFrozen: payouts_frozen } : {}), ...(environment !== undefined ? { environment } : {}) }) };
        },
      }),
    ],
  };
}
