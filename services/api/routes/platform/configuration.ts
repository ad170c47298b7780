import type { Knex } from 'knex';
import { listCountries, MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import { ApiError } from '../../../../packages/core/errors.js';
import type { ActivationInput, CountryActivations } from '../../../../packages/families/platform/country-activation/commands.js';
import type { ActivationSetter } from '../../../../packages/families/platform/country-activation/events.js';
import type { FeatureFlagInput, FeatureFlags } from '../../../../packages/families/platform/feature-flag/commands.js';
import type { HandlerContext } from '../../../../packages/http/context.js';
import { route, type Family, type RouteAuth } from '../../../../packages/http/routes.js';
import { activationsByCountry, findActivation, listActivations } from '../../../../projections/platform/country-activations.js';
import { listFeatureFlags } from '../../../../projections/platform/feature-flags.js';
import { findMerchant } from '../../../../projections/merchants/merchants.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, found, idParams, listSchema, resourceSchema } from '../shared.js';
import type { Owner } from '../../../../packages/core/owner.js';
import type { Country } from '../../../../packages/catalog/types.js';
import type { RailChoice } from '../../../rails.js';

const BASE = '/api/v1/configuration';
/** Merchants read and change their own configuration; the platform operator credential any merchant's (naming it). */
export const read: RouteAuth = { scope: 'configuration.read', environmentHeader: 'optional', platform: 'also' };
const write: RouteAuth = { scope: 'configuration.write', environmentHeader: 'optional', platform: 'also' };
/** Feature flags are platform settings: only the operator changes them. */
export const platformOnly: RouteAuth = { scope: 'configuration.write', platform: 'only' };

export const merchantIdSchema = { type: 'string', minLength: 1, maxLength: 255 };
const amountBound = { type: ['integer', 'null'], minimum: 1, maximum: MAX_AMOUNT };
const ruleFields = { enabledForPayIn: { type: 'boolean' }, enabledForPayout: { type: 'boolean' }, minAmount: amountBound, maxAmount: amountBound };

const activationBody = {
  type: 'object',
  required: ['countryCode'],
  additionalProperties: false,
  properties: { countryCode: countrySchema, currencyIso: currencySchema, ...ruleFields, merchantId: merchantIdSchema },
};
const activationPutBody = {
  type: 'object',
  additionalProperties: false,
  properties: { countryCode: countrySchema, currencyIso: currencySchema, ...ruleFields },
};
export const merchantQuery = { type: 'object', additionalProperties: false, properties: { merchantId: merchantIdSchema } };

const activationSchema = resourceSchema('country_activation', ['merchantId', 'countryCode', 'currencyIso', 'enabledForPayIn', 'enabledForPayout', 'minAmount', 'maxAmount', 'setBy'], {
  merchantId: { type: 'string' },
  countryCode: { type: 'string' },
  currencyIso: { type: 'string' },
  enabledForPayIn: { type: 'boolean' },
  enabledForPayout: { type: 'boolean' },
  minAmount: { type: ['integer', 'null'] },
  maxAmount: { type: ['integer', 'null'] },
  setBy: { enum: ['operator', 'merchant'], description: 'Who set the switches and bounds as they stand: the platform operator (the merchant cannot change or delete them: 403 IKW-CFG-005) or the merchant' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});

const flagSchema = resourceSchema('feature_flag', ['key', 'isEnabled', 'merchantId'], {
  key: { type: 'string' },
  isEnabled: { type: 'boolean' },
  merchantId: { type: ['string', 'null'] },
  description: { type: ['string', 'null'] },
  updated: { type: 'integer' },
});

const railChoiceSchema = {
  type: 'object',
  required: ['method', 'direction', 'operator', 'rail', 'availability', 'refusal'],
  properties: {
    method: { enum: ['mobile_money', 'card', 'bank'] },
    direction: { enum: ['collect', 'payout'] },
    operator: { type: ['string', 'null'], description: 'The mobile money operator; null for cards and banks' },
    rail: { type: ['string', 'null'], description: 'The connector that carries it in live (`pawapay`, `paystack`); null: refused' },
    availability: { enum: ['available', 'degraded', 'unavailable', null], description: 'What that rail says of it now; null when refused' },
    refusal: {
      oneOf: [
        {
          type: 'object',
          required: ['code', 'message', 'reason'],
          properties: {
            code: { type: 'string', description: 'IKW-PRV-001' },
            message: { type: 'string', description: 'What a live payment or payout of this method answers' },
            reason: { type: 'string', description: 'Why no rail carries it: none configured, a rail that has not loaded what it serves yet, or none that serves it' },
          },
        },
        { type: 'null' },
      ],
    },
  },
};

const countryConfigSchema = {
  type: 'object',
  required: ['object', 'countryCode', 'name', 'currencyIso', 'operators', 'activation', 'liveRails'],
  properties: {
    object: { const: 'country_configuration' },
    countryCode: { type: 'string' },
    name: { type: 'string' },
    currencyIso: { type: 'string' },
    operators: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, name: { type: 'string' }, payIn: { type: 'boolean' }, payout: { type: 'boolean' } } } },
    activation: { oneOf: [activationSchema, { type: 'null' }] },
    liveRails: {
      type: 'array',
      items: railChoiceSchema,
      description: "The router's choice in live for each method (mobile money collect and payout per operator, card collect, bank payout): the rail, or the refusal (docs/connectors.md, \"The router\")",
    },
  },
};

/**
 * Whose configuration a request acts on: the caller's own; for the platform operator credential,
 * the merchant it names (IKW-CFG-004 without one). A merchant naming another is refused (IKW-AUT-009).
 */
export async function ownerOf(knex: Knex, ctx: HandlerContext<unknown, unknown, unknown>, merchantId: string | undefined): Promise<Owner> {
  if (ctx.principal.platform) {
    if (merchantId === undefined) throw new ApiError('IKW-CFG-004', undefined, 'merchantId');
    if (!(await findMerchant(knex, merchantId))) throw new ApiError('IKW-RES-001', `No such merchant: '${merchantId}'`, 'merchantId');
    return { merchantId, environment: ctx.principal.environment };
  }
  if (merchantId !== undefined && merchantId !== ctx.owner.merchantId) throw new ApiError('IKW-AUT-009', "Another merchant's configuration needs the platform operator credential", 'merchantId');
  return ctx.owner;
}

/** Who sets an activation: the platform operator credential, or the merchant (its key or a member). */
const setterOf = (ctx: HandlerContext<unknown, unknown, unknown>): ActivationSetter => (ctx.principal.platform ? 'operator' : 'merchant');

/**
 * /api/v1/configuration (docs/configuration.md): the countries a merchant can work in, its
 * activations (pay-in and payout switches, amount bounds, per country and currency) and the
 * platform's feature flags. Nine operations.
 */
export function configurationFamily(knex: Knex, activations: CountryActivations, flags: FeatureFlags, liveRails: (country: Country) => Promise<RailChoice[]>): Family {
  return {
    name: 'configuration',
    description: 'Where the merchant takes payments and sends payouts: the catalog\'s countries and the merchant\'s activation of each country and currency.',
    routes: [
      route<unknown, { merchantId?: string }>({
        method: 'get',
        path: `${BASE}/countries`,
        summary: "The catalog's countries with their currency and operators, the merchant's activation of each (null: the catalog's defaults), and the rail that carries each method in live",
        auth: read,
        query: merchantQuery,
        response: listSchema(countryConfigSchema),
        handler: async (ctx) => {
          const owner = await ownerOf(knex, ctx, ctx.query.merchantId);
          const activated = await activationsByCountry(knex, owner);
          return {
            object: 'list',
            data: await Promise.all(listCountries().map(async (c) => ({
              object: 'country_configuration',
              countryCode: c.code,
              name: c.name,
              currencyIso: c.currency,
              operators: c.operators.map((o) => ({ code: o.code, name: o.name, payIn: o.directions.includes('payin'), payout: o.directions.includes('payout') })),
              activation: activated.get(c.code) ?? null,
              liveRails: await liveRails(c),
            }))),
          };
        },
      }),
      route<unknown, CursorQuery & { countryCode?: string; merchantId?: string }>({
        method: 'get',
        path: `${BASE}/activations`,
        summary: "List the merchant's activations, newest first (cursor-paged), by countryCode",
        auth: read,
        query: cursorQuery({ countryCode: countrySchema, merchantId: merchantIdSchema }),
        response: cursorListSchema(activationSchema),
        handler: async (ctx) => {
          const owner = await ownerOf(knex, ctx, ctx.query.merchantId);
          return listActivations(knex, owner, ctx.query, `${BASE}/activations`, { ...(ctx.query.countryCode ? { country_code: ctx.query.countryCode.toUpperCase() } : {}) });
        },
      }),
      route<ActivationInput & { merchantId?: string }>({
        method: 'post',
        path: `${BASE}/activations`,
        summary: 'Activate a country and currency: pay-ins and payouts on or off, and the amounts accepted (one activation per country and currency)',
        auth: write,
        body: activationBody,
        response: activationSchema,
        handler: async (ctx) => {
          const { merchantId, ...input } = ctx.body;
          return activations.create(await ownerOf(knex, ctx, merchantId), input, setterOf(ctx), ctx.actor);
        },
      }),
      route<unknown, { merchantId?: string }, { id: string }>({
        method: 'get',
        path: `${BASE}/activations/:id`,
        summary: 'Retrieve an activation',
        auth: read,
        params: idParams,
        query: merchantQuery,
        response: activationSchema,
        handler: async (ctx) => found('activation', ctx.params.id, findActivation(knex, await ownerOf(knex, ctx, ctx.query.merchantId), ctx.params.id)),
      }),
      route<ActivationInput, { merchantId?: string }, { id: string }>({
        method: 'put',
        path: `${BASE}/activations/:id`,
        fields: { activationId: 'id' },
        summary: 'Replace the switches and bounds of an activation (its country and currency do not change); one the platform operator set only the operator changes',
        auth: write,
        params: idParams,
        query: merchantQuery,
        body: activationPutBody,
        response: activationSchema,
        handler: async (ctx) => activations.update(await ownerOf(knex, ctx, ctx.query.merchantId), ctx.params.id, ctx.body, setterOf(ctx), ctx.actor),
      }),
      route<unknown, { merchantId?: string }, { id: string }>({
        method: 'delete',
        path: `${BASE}/activations/:id`,
        fields: { activationId: 'id' },
        summary: "Delete an activation: the country follows the catalog's defaults again; one the platform operator set only the operator deletes",
        auth: write,
        params: idParams,
        query: merchantQuery,
        response: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'country_activation' }, deleted: { const: true } } },
        handler: async (ctx) => {
          await activations.delete(await ownerOf(knex, ctx, ctx.query.merchantId), ctx.params.id, setterOf(ctx), ctx.actor);
          return { id: ctx.params.id, object: 'country_activation', deleted: true };
        },
      }),
      route<unknown, { merchantId?: string }>({
        method: 'get',
        path: `${BASE}/feature-flags`,
        summary: 'Feature flags: a merchant reads those that apply to it; the platform operator every flag, or one merchant’s overrides',
        auth: read,
        query: merchantQuery,
        response: listSchema(flagSchema),
        handler: async (ctx) => {
          if (ctx.principal.platform) return listFeatureFlags(knex, { ...(ctx.query.merchantId !== undefined ? { merchantId: ctx.query.merchantId } : {}) });
          return listFeatureFlags(knex, { effectiveFor: (await ownerOf(knex, ctx, ctx.query.merchantId)).merchantId });
        },
      }),
      route<FeatureFlagInput>({
        method: 'post',
        path: `${BASE}/feature-flags`,
        summary: 'Set a feature flag for every merchant, or for one (merchantId); the platform operator credential only',
        auth: platformOnly,
        body: {
          type: 'object',
          required: ['key'],
          additionalProperties: false,
          properties: {
            key: { type: 'string', pattern: '^[a-z0-9][a-z0-9_.-]{0,99}$' },
            isEnabled: { type: 'boolean' },
            merchantId: { type: ['string', 'null'], minLength: 1, maxLength: 255 },
            description: { type: ['string', 'null'], maxLength: 1000 },
          },
        },
        response: flagSchema,
        handler: async (ctx) => {
          if (ctx.body.merchantId && !(await findMerchant(knex, ctx.body.merchantId))) throw new ApiError('IKW-RES-001', `No such merchant: '${ctx.body.merchantId}'`, 'merchantId');
          return flags.set(ctx.body, ctx.actor);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: `${BASE}/feature-flags/:id`,
        fields: { flagId: 'id' },
        summary: 'Delete a feature flag (a merchant override: the platform-wide value applies again); the platform operator credential only',
        auth: platformOnly,
        params: idParams,
        response: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'feature_flag' }, deleted: { const: true } } },
        handler: async (ctx) => {
          await flags.delete(ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'feature_flag', deleted: true };
        },
      }),
    ],
  };
}
