import type { Knex } from 'knex';
import type { CreateCapabilityInput, PaymentCapabilities } from '../payment-capability/commands.js';
import { PAYMENT_METHOD_TYPES } from '../payment-capability/events.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { findPaymentCapability, listPaymentCapabilities } from '../read/payment-capabilities.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, idParams, resourceSchema, retrieveRoute } from '#packages/http/route-kit.js';

const read: RouteAuth = { scope: 'payment_capabilities.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'payment_capabilities.write', environmentHeader: 'optional' };
const BASE = '/api/v1/payment_capabilities';

const METHOD_WORDS = { mobile_money: 'Mobile money wallets', card: 'Cards', bank: 'Bank transfers (payouts to bank accounts)' };
const methodType = (description: string) => ({ enum: [...PAYMENT_METHOD_TYPES], description, 'x-enumDescriptions': METHOD_WORDS });

const createBody = {
  type: 'object',
  required: ['country', 'currency', 'payment_method_type'],
  additionalProperties: false,
  properties: {
    country: { ...countrySchema, description: "The country it rules (`SN`), one of the catalog's" },
    currency: { ...currencySchema, description: "The country's currency (`xof` for SN)" },
    payment_method_type: methodType('The payment method it rules'),
    operator: { type: ['string', 'null'], minLength: 1, maxLength: 64, description: 'Mobile money only: the one operator it rules (`wave`), an operator of the country in the catalog; null or absent for every operator of the country' },
    is_enabled: { type: 'boolean', description: 'Whether the method may be used; `true` when left out' },
  },
};

const capabilitySchema = resourceSchema('payment_capability', ['country', 'currency', 'payment_method_type', 'is_enabled', 'status'], {
  id: { type: 'string', description: 'Its id (`cap_…`), derived from the merchant, environment, country, currency, method and operator: made again after a delete, it has the same id' },
  country: { type: 'string', description: 'The country it rules (ISO 3166-1, upper case)' },
  currency: { type: 'string', description: "The country's currency, lower case" },
  payment_method_type: methodType('The payment method it rules'),
  operator: { type: ['string', 'null'], description: "The one mobile money operator it rules; null for every operator of the country (an operator's own capability wins over it)" },
  is_enabled: { type: 'boolean', description: 'Whether the method may be used: `false` refuses it with `IKW-CAP-001`' },
  status: {
    enum: ['active', 'suspended'],
    description: 'Whether it is suspended',
    'x-enumDescriptions': { active: 'Not suspended: `is_enabled` decides', suspended: 'Refused with `IKW-CAP-002` and `suspension_reason`, whatever `is_enabled` says, until resumed' },
  },
  suspension_reason: { type: ['string', 'null'], description: 'Why it was suspended, as the refusals say it; null unless suspended' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/**
 * /api/v1/payment_capabilities: what each merchant may use, per country, currency, method and
 * operator (docs/platform.md). Seven operations: list, create, retrieve, update
 * (is_enabled), suspend, resume, delete.
 */
export function paymentCapabilitiesRoutes(knex: Knex, capabilities: PaymentCapabilities): RouteGroup {
  return {
    name: 'payment_capabilities',
    description: "The merchant's own switches of payment methods per country, currency and operator: enabled, disabled or suspended.",
    routes: [
      route<unknown, CursorQuery & { country?: string; payment_method_type?: string }>({
        method: 'get',
        path: BASE,
        summary: "List the merchant's payment capabilities, newest first (cursor-paged), by country or method; a method without one follows the catalog",
        description:
          'Your rules over the catalog in the environment the request acts in, newest first: what you disabled or suspended, and where. A method with no capability is allowed as the catalog offers it. Filter by `country` or `payment_method_type`; cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({ country: { ...countrySchema, description: 'Only the capabilities of this country' }, payment_method_type: methodType('Only the capabilities of this method') }),
        response: cursorListSchema(capabilitySchema),
        handler: (ctx) =>
          listPaymentCapabilities(knex, ctx.owner, ctx.query, BASE, {
            ...(ctx.query.country ? { country: ctx.query.country.toUpperCase() } : {}),
            ...(ctx.query.payment_method_type ? { payment_method_type: ctx.query.payment_method_type } : {}),
          }),
      }),
      route<CreateCapabilityInput>({
        method: 'post',
        path: BASE,
        summary: 'Create a payment capability: enable or disable a method in a country and currency, optionally for one operator',
        description:
          'Records your rule for one payment method in one country: disable it (`is_enabled: false`) to refuse it in payment confirmations and payouts, or keep one operator enabled under a disabled country-wide rule ("mobile money in SN disabled, Wave enabled" allows Wave alone). The country, its currency and the operator are checked against the catalog (`IKW-VAL-004`, `IKW-VAL-003`, `IKW-VAL-009`, `IKW-VAL-005`); an operator on another method is `IKW-VAL-002`. A second rule for the same country, currency, method and operator is `409 IKW-CAP-003`: update that one. It applies from the next request; payments and payouts already started go on.',
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-005', 'IKW-VAL-009', 'IKW-CAP-003'],
        auth: write,
        body: createBody,
        fields: { paymentMethodType: 'payment_method_type' },
        response: capabilitySchema,
        handler: (ctx) => capabilities.create(ctx.owner, ctx.body, ctx.actor),
      }),
      {
        ...retrieveRoute({ path: `${BASE}/:id`, noun: 'payment capability', auth: read, response: capabilitySchema, summary: 'Retrieve a payment capability', find: (owner, id) => findPaymentCapability(knex, owner, id) }),
        description: "One capability as it stands: enabled or not, suspended or not and why. Another merchant's capability, one of the other environment or a deleted one is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<{ is_enabled: boolean }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id`,
        fields: { capabilityId: 'id' },
        summary: 'Enable or disable a payment capability',
        description: 'Turns the method on or off for its country (and operator) from the next request. A suspended capability stays refused until resumed, whatever `is_enabled` says.',
        refusals: [],
        auth: write,
        params: idParams,
        body: { type: 'object', required: ['is_enabled'], additionalProperties: false, properties: { is_enabled: { type: 'boolean', description: '`true` to allow the method, `false` to refuse it' } } },
        response: capabilitySchema,
        handler: (ctx) => capabilities.update(ctx.owner, ctx.params.id, ctx.body.is_enabled, ctx.actor),
      }),
      route<{ reason: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id/suspend`,
        fields: { capabilityId: 'id' },
        summary: 'Suspend a payment capability, with a reason: the method is refused until it is resumed',
        description:
          'Stops the method for a while, with a reason that every refusal (`IKW-CAP-002`) then carries: while an operator is unreliable, say, or a review is under way. Resume it to go back to `is_enabled`. A capability already suspended is `409 IKW-RES-002`.',
        refusals: ['IKW-RES-002'],
        auth: write,
        params: idParams,
        body: {
          type: 'object',
          required: ['reason'],
          additionalProperties: false,
          properties: { reason: { type: 'string', minLength: 1, maxLength: 1000, description: 'Why, in words that refusals of the method repeat (1 to 1,000 characters)' } },
        },
        response: capabilitySchema,
        handler: (ctx) => capabilities.suspend(ctx.owner, ctx.params.id, ctx.body.reason, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id/resume`,
        fields: { capabilityId: 'id' },
        summary: 'Resume a suspended payment capability',
        description: 'Ends a suspension: the method follows `is_enabled` again from the next request, and `suspension_reason` is cleared. A capability that is not suspended is `409 IKW-RES-002`.',
        refusals: ['IKW-RES-002'],
        auth: write,
        params: idParams,
        response: capabilitySchema,
        handler: (ctx) => capabilities.resume(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: `${BASE}/:id`,
        fields: { capabilityId: 'id' },
        summary: "Delete a payment capability: the method follows the catalog's default again",
        description:
          "Removes your rule, suspended or not: the method is allowed as the catalog offers it again (or as a country-wide rule says, for an operator's). It is `404 IKW-RES-001` from now on; creating the same rule again gives it back its id.",
        refusals: [],
        auth: write,
        params: idParams,
        response: {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: {
            id: { type: 'string', description: 'The id of the deleted capability' },
            object: { const: 'payment_capability', description: 'The kind of object: always `payment_capability`' },
            deleted: { const: true, description: 'Always `true`: it is deleted' },
          },
        },
        handler: async (ctx) => {
          await capabilities.delete(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'payment_capability', deleted: true };
        },
      }),
    ],
  };
}
