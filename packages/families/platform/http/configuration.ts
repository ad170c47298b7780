import { isOwned } from '#packages/core/aggregate.js';
import type { Knex } from 'knex';
import { listCountries, MAX_AMOUNT } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import type { ActivationInput, CountryActivations } from '../country-activation/commands.js';
import type { ActivationSetter } from '../country-activation/events.js';
import type { FeatureFlagInput, FeatureFlags } from '../feature-flag/commands.js';
import type { HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { activationsByCountry, findActivation, listActivations } from '../read/country-activations.js';
import { listFeatureFlags } from '../read/feature-flags.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, found, idParams, listSchema, resourceSchema } from '#packages/http/route-kit.js';
import type { Owner } from '#packages/core/owner.js';
import type { Country } from '#packages/catalog/types.js';
import type { RailChoice } from '#packages/connectors/router.js';
import { platformErrors } from '../errors.js';

const BASE = '/api/v1/configuration';
/** Merchants read and change their own configuration; the platform operator credential any merchant's (naming it). */
export const read: RouteAuth = { scope: 'configuration.read', environmentHeader: 'optional', platform: 'also' };
const write: RouteAuth = { scope: 'configuration.write', environmentHeader: 'optional', platform: 'also' };
/** Feature flags are platform settings: only the operator changes them. */
export const platformOnly: RouteAuth = { scope: 'configuration.write', platform: 'only' };

export const merchantIdSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    "With the platform operator's credential, the merchant it acts on (`acct_…`): required with that credential (`400 IKW-CFG-004`), an unknown one is `404 IKW-RES-001`. A merchant's own credential acts on itself: leave it out or name yourself (another merchant is `403 IKW-AUT-009`)",
};
const amountBound = { type: ['integer', 'null'], minimum: 1, maximum: MAX_AMOUNT };
/** The switches and bounds of a request; `absent` says what a field left out means (a create's default, or a PUT's current value). */
const ruleFields = (absent: { on: string; bound: string }) => ({
  enabledForPayIn: { type: 'boolean', description: `Whether payments may be collected in this country and currency: \`false\` refuses new payment intents (\`422 IKW-CFG-001\`); ${absent.on}` },
  enabledForPayout: { type: 'boolean', description: `Whether payouts may be sent in this country and currency: \`false\` refuses new payouts and payout batch instructions (\`422 IKW-CFG-001\`); ${absent.on}` },
  minAmount: { ...amountBound, description: `The smallest amount accepted, in minor units of the currency; null for no lower bound. Smaller ones are \`422 IKW-CFG-002\`; ${absent.bound}` },
  maxAmount: { ...amountBound, description: `The largest amount accepted, in minor units of the currency, not below \`minAmount\`; null for no upper bound. Larger ones are \`422 IKW-CFG-002\`; ${absent.bound}` },
});

const activationBody = {
  type: 'object',
  required: ['countryCode'],
  additionalProperties: false,
  properties: {
    countryCode: { ...countrySchema, description: "The country to activate (`SN`), one of the catalog's (`400 IKW-VAL-004` otherwise)" },
    currencyIso: { ...currencySchema, description: "Its currency (`XOF`): the country's own, which it is when left out (another is `400 IKW-VAL-009`)" },
    ...ruleFields({ on: '`true` when left out', bound: 'null when left out' }),
    merchantId: merchantIdSchema,
  },
};
const activationPutBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    countryCode: { ...countrySchema, description: "The activation's country, if given: it cannot change (another is `400 IKW-VAL-002`; delete the activation and create one)" },
    currencyIso: { ...currencySchema, description: "The activation's currency, if given: it cannot change (another is `400 IKW-VAL-002`)" },
    ...ruleFields({ on: 'left out, it keeps its value', bound: 'left out, it keeps its value' }),
  },
};
export const merchantQuery = { type: 'object', additionalProperties: false, properties: { merchantId: merchantIdSchema } };
/** A merchant reads the flags that apply to it; the operator every flag, or one merchant's own (no merchant is checked there: it filters). */
const flagQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    merchantId: {
      ...merchantIdSchema,
      description:
        "With the platform operator's credential, only this merchant's own flags (`acct_…`); every flag, platform-wide and per merchant, when left out. A merchant's own credential reads the flags that apply to it whatever it names: leave it out or name yourself (another merchant is `403 IKW-AUT-009`)",
    },
  },
};

const activationSchema = resourceSchema('country_activation', ['merchantId', 'countryCode', 'currencyIso', 'enabledForPayIn', 'enabledForPayout', 'minAmount', 'maxAmount', 'setBy'], {
  id: { type: 'string', description: 'Its id, a UUID derived from the merchant, environment, country and currency: created again after a delete, it has the same id' },
  merchantId: { type: 'string', description: 'The merchant it applies to (`acct_…`)' },
  countryCode: { type: 'string', description: 'The country it narrows (ISO 3166-1 alpha-2, upper case)' },
  currencyIso: { type: 'string', description: "The country's currency it applies to (ISO 4217, upper case)" },
  enabledForPayIn: { type: 'boolean', description: 'Whether payments may be collected here: `false` refuses new payment intents of this country and currency with `422 IKW-CFG-001`' },
  enabledForPayout: { type: 'boolean', description: 'Whether payouts may be sent here: `false` refuses new payouts and payout batch instructions to this country and currency with `422 IKW-CFG-001`' },
  minAmount: { type: ['integer', 'null'], description: 'The smallest amount accepted either way, in minor units of the currency (`422 IKW-CFG-002` below it); null for no lower bound' },
  maxAmount: { type: ['integer', 'null'], description: 'The largest amount accepted either way, in minor units of the currency (`422 IKW-CFG-002` above it); null for no upper bound' },
  setBy: {
    enum: ['operator', 'merchant'],
    description: 'Who set the switches and bounds as they stand',
    'x-enumDescriptions': {
      operator: 'The platform operator, with its credential: the merchant cannot change or delete it (`403 IKW-CFG-005`)',
      merchant: 'The merchant, with a key or as a signed-in member: the merchant and the platform operator may change or delete it',
    },
  },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});

const flagSchema = resourceSchema('feature_flag', ['key', 'isEnabled', 'merchantId'], {
  id: { type: 'string', description: 'Its id, a UUID derived from its key and merchant: setting the same key for the same merchant (or platform-wide) again changes this flag' },
  key: { type: 'string', description: 'The name of the setting (`batch_payouts`)' },
  isEnabled: { type: 'boolean', description: 'Whether it is on' },
  merchantId: { type: ['string', 'null'], description: 'The merchant whose own value this is, over the platform-wide one (`acct_…`); null for the platform-wide value, which applies to every merchant without its own' },
  description: { type: ['string', 'null'], description: "What the setting is for, in the platform operator's words; null when none" },
  updated: { type: 'integer' },
});

const railChoiceSchema = {
  type: 'object',
  required: ['method', 'direction', 'operator', 'rail', 'availability', 'refusal'],
  properties: {
    method: {
      enum: ['mobile_money', 'card', 'bank'],
      description: 'The payment method',
      'x-enumDescriptions': { mobile_money: "Mobile money, one operator's wallets (`operator`)", card: 'Cards', bank: 'Bank transfers' },
    },
    direction: {
      enum: ['collect', 'payout'],
      description: 'Which way the money goes',
      'x-enumDescriptions': { collect: 'Payments collected from payers', payout: 'Payouts sent to recipients' },
    },
    operator: { type: ['string', 'null'], description: 'The mobile money operator; null for cards and banks' },
    rail: { type: ['string', 'null'], description: 'The connector that carries it in live (`pawapay`, `paystack`); null: refused' },
    availability: {
      enum: ['available', 'degraded', 'unavailable', null],
      description: 'What that rail says of it now; null when refused',
      'x-enumDescriptions': {
        available: 'The provider reports it working',
        degraded: 'The provider reports delays, or its status could not be read',
        unavailable: 'The provider reports it closed, or does not list it',
      },
    },
    refusal: {
      description: 'Why a live payment or payout of this method is refused (`422 IKW-PRV-001`); null when a rail carries it',
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
    object: { const: 'country_configuration', description: 'The kind of object: always `country_configuration`' },
    countryCode: { type: 'string', description: 'The country (ISO 3166-1 alpha-2, upper case)' },
    name: { type: 'string', description: 'Its name in English (`Senegal`)' },
    currencyIso: { type: 'string', description: 'Its currency (ISO 4217, upper case): the one its payments and payouts are in' },
    operators: {
      type: 'array',
      description: 'Its mobile money operators in the catalog, and the directions each serves',
      items: {
        type: 'object',
        properties: {
          code: { type: 'string', description: "The operator's code, as a payment method or payout destination names it (`orange_money`)" },
          name: { type: 'string', description: 'Its name, as a payer knows it (`Orange Money`)' },
          payIn: { type: 'boolean', description: 'Whether payments can be collected from its wallets' },
          payout: { type: 'boolean', description: 'Whether payouts can be sent to its wallets' },
        },
      },
    },
    activation: {
      description: "Your activation of the country in the request's environment; null when none: the catalog's defaults apply",
      oneOf: [activationSchema, { type: 'null' }],
    },
    liveRails: {
      type: 'array',
      items: railChoiceSchema,
      description: 'The router\'s choice in live for each method (mobile money collect and payout per operator, card collect, bank payout): the rail, or the refusal (docs/connectors.md, "The router")',
    },
  },
};

/**
 * Whose configuration a request acts on: the caller's own; for the platform operator credential,
 * the merchant it names (IKW-CFG-004 without one). A merchant naming another is refused (IKW-AUT-009).
 */
export async function ownerOf(knex: Knex, ctx: HandlerContext<unknown, unknown, unknown>, merchantId: string | undefined): Promise<Owner> {
  if (ctx.principal.platform) {
    if (merchantId === undefined) throw new ApiError('IKW-CFG-004', platformErrors['IKW-CFG-004'].message, 'merchantId');
    if (!(await findMerchant(knex, merchantId))) throw new ApiError('IKW-RES-001', `No such merchant: '${merchantId}'`, 'merchantId');
    return { merchantId, environment: ctx.principal.environment };
  }
  if (merchantId !== undefined && !isOwned({ merchantId, environment: ctx.owner.environment }, ctx.owner)) throw new ApiError('IKW-AUT-009', "Another merchant's configuration needs the platform operator credential", 'merchantId');
  return ctx.owner;
}

/** Who sets an activation: the platform operator credential, or the merchant (its key or a member). */
const setterOf = (ctx: HandlerContext<unknown, unknown, unknown>): ActivationSetter => (ctx.principal.platform ? 'operator' : 'merchant');

/**
 * /api/v1/configuration (docs/configuration.md): the countries a merchant can work in, its
 * activations (pay-in and payout switches, amount bounds, per country and currency) and the
 * platform's feature flags. Nine operations.
 */
export function configurationRoutes(knex: Knex, activations: CountryActivations, flags: FeatureFlags, liveRails: (country: Country) => Promise<RailChoice[]>): RouteGroup {
  return {
    name: 'configuration',
    description: "Where the merchant takes payments and sends payouts: the catalog's countries, the rail that carries each method in live, and the merchant's activation of each country and currency; and the platform's feature flags.",
    routes: [
      route<unknown, { merchantId?: string }>({
        method: 'get',
        path: `${BASE}/countries`,
        summary: "The catalog's countries with their currency and operators, the merchant's activation of each (null: the catalog's defaults), and the rail that carries each method in live",
        description:
          "Every country of the catalog in one list (not paged), for a country picker or a check before going live: its currency, its mobile money operators and the directions each serves, your activation of it in the environment the request acts in (`null`: the catalog's defaults), and `liveRails`: for each method, the rail that carries it in live and what that rail says of it now, or why a live payment or payout of it would be refused with `422 IKW-PRV-001`. `liveRails` is the live router's own decision, whatever the environment of the request; sandbox carries every method.",
        refusals: ['IKW-RES-001'],
        auth: read,
        query: merchantQuery,
        response: listSchema(countryConfigSchema),
        handler: async (ctx) => {
          const owner = await ownerOf(knex, ctx, ctx.query.merchantId);
          const activated = await activationsByCountry(knex, owner);
          return {
            object: 'list',
            data: await Promise.all(
              listCountries().map(async (c) => ({
                object: 'country_configuration',
                countryCode: c.code,
                name: c.name,
                currencyIso: c.currency,
                operators: c.operators.map((o) => ({ code: o.code, name: o.name, payIn: o.directions.includes('payin'), payout: o.directions.includes('payout') })),
                activation: activated.get(c.code) ?? null,
                liveRails: await liveRails(c),
              })),
            ),
          };
        },
      }),
      route<unknown, CursorQuery & { countryCode?: string; merchantId?: string }>({
        method: 'get',
        path: `${BASE}/activations`,
        summary: "List the merchant's activations, newest first (cursor-paged), by countryCode",
        description:
          "Your activations in the environment the request acts in, newest first: the countries and currencies where you narrowed what the catalog allows. A country without one follows the catalog. `countryCode` keeps one country's; cursor-paged (docs/pagination.md).",
        refusals: ['IKW-RES-001'],
        auth: read,
        query: cursorQuery({ countryCode: { ...countrySchema, description: 'Only the activation of this country (`SN`, any case)' }, merchantId: merchantIdSchema }),
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
        description:
          "Narrows the catalog for one country and its currency, in the environment the request acts in: switch pay-ins (`enabledForPayIn`) or payouts (`enabledForPayout`) off, or bound the amounts (`minAmount`, `maxAmount`, in minor units). From the next request, a payment intent it forbids is refused at creation with `422 IKW-CFG-001` (pay-ins off) or `IKW-CFG-002` (amount out of bounds), and so are payouts and payout batch instructions; what was created before goes on. One activation per country and currency: a second is `409 IKW-CFG-003` (change that one). `minAmount` above `maxAmount` is `400 IKW-VAL-001`. Made with the platform operator's credential (naming `merchantId`), it is the operator's (`setBy: operator`): the merchant can read it but neither change nor delete it.",
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-009', 'IKW-CFG-003', 'IKW-RES-001'],
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
        description: "One activation as it stands: its switches, its bounds and who set them. Another merchant's, one of the other environment or a deleted one is `404 IKW-RES-001`.",
        refusals: [],
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
        summary: 'Change the switches and bounds of an activation (those left out keep their value; its country and currency do not change); one the platform operator set only the operator changes',
        description:
          "Changes an activation's switches and bounds from the next request: the fields given replace theirs, those left out keep their value (`null` removes a bound). Its country and currency are what it is: to move it, delete it and create another. One the platform operator set is `403 IKW-CFG-005` for the merchant and changes nothing; the operator's change of a merchant's activation makes it the operator's (`setBy`). A change made meanwhile by another request may be `409 IKW-RES-003`: read it again and retry.",
        refusals: ['IKW-CFG-005', 'IKW-RES-003'],
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
        description:
          "Removes the activation: from the next request the country follows the catalog's defaults again, both ways and for every amount it takes. It is `404 IKW-RES-001` from then on; created again, it gets the same id. One the platform operator set is `403 IKW-CFG-005` for the merchant and stays; once the operator deletes it, the merchant may create its own.",
        refusals: ['IKW-CFG-005', 'IKW-RES-003'],
        auth: write,
        params: idParams,
        query: merchantQuery,
        response: {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: {
            id: { type: 'string', description: 'The id of the deleted activation' },
            object: { const: 'country_activation', description: 'The kind of object: always `country_activation`' },
            deleted: { const: true, description: 'Always `true`: it is deleted' },
          },
        },
        handler: async (ctx) => {
          await activations.delete(await ownerOf(knex, ctx, ctx.query.merchantId), ctx.params.id, setterOf(ctx), ctx.actor);
          return { id: ctx.params.id, object: 'country_activation', deleted: true };
        },
      }),
      route<unknown, { merchantId?: string }>({
        method: 'get',
        path: `${BASE}/feature-flags`,
        summary: 'Feature flags: a merchant reads those that apply to it; the platform operator every flag, or one merchant’s overrides',
        description:
          "Feature flags are named on/off settings the platform operator keeps, platform-wide and per merchant, for merchants' integrations to read: the service itself changes nothing by them. A merchant reads those that apply to it, one per key: its own value where it has one, else the platform-wide one. The platform operator reads every flag, or with `merchantId` one merchant's own. In key order, not paged; not per environment.",
        refusals: [],
        auth: read,
        query: flagQuery,
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
        description:
          "Creates or changes the flag of a key, platform-wide or for one merchant: there is one per key and merchant, and setting it again replaces it (`isEnabled` and `description` left out become `false` and `null`). A merchant's own value wins over the platform-wide one for that merchant; delete it to give the merchant the platform-wide value again.",
        refusals: ['IKW-RES-001'],
        auth: platformOnly,
        body: {
          type: 'object',
          required: ['key'],
          additionalProperties: false,
          properties: {
            key: { type: 'string', pattern: '^[a-z0-9][a-z0-9_.-]{0,99}$', description: 'The name of the setting (`batch_payouts`): 1 to 100 lower case letters, digits, `_`, `.` and `-`, starting with a letter or digit' },
            isEnabled: { type: 'boolean', description: 'Whether it is on; `false` when left out' },
            merchantId: {
              type: ['string', 'null'],
              minLength: 1,
              maxLength: 255,
              description: 'The merchant this value is for, over the platform-wide one (`acct_…`; an unknown one is `404 IKW-RES-001`); null or left out for the platform-wide value',
            },
            description: { type: ['string', 'null'], maxLength: 1000, description: 'What the setting is for, up to 1,000 characters; null when left out' },
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
        description:
          "Removes a flag. A merchant's own value gone, the platform-wide value applies to it again; the platform-wide value gone, merchants without their own no longer see the key. A flag that does not exist (or no longer does) is `404 IKW-RES-001`.",
        refusals: [],
        auth: platformOnly,
        params: idParams,
        response: {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: {
            id: { type: 'string', description: 'The id of the deleted flag' },
            object: { const: 'feature_flag', description: 'The kind of object: always `feature_flag`' },
            deleted: { const: true, description: 'Always `true`: it is deleted' },
          },
        },
        handler: async (ctx) => {
          await flags.delete(ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'feature_flag', deleted: true };
        },
      }),
    ],
  };
}
