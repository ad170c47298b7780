import type { Knex } from 'knex';
import type { CreateCapabilityInput, PaymentCapabilities } from '../../../../packages/families/platform/payment-capability/commands.js';
import { PAYMENT_METHOD_TYPES } from '../../../../packages/families/platform/payment-capability/events.js';
import { route, type Family, type RouteAuth } from '../../../../packages/http/routes.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { findPaymentCapability, listPaymentCapabilities } from '../../../../projections/platform/payment-capabilities.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, idParams, resourceSchema, retrieveRoute } from '../shared.js';

const read: RouteAuth = { scope: 'payment_capabilities.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'payment_capabilities.write', environmentHeader: 'optional' };
const BASE = '/api/v1/payment_capabilities';

const createBody = {
  type: 'object',
  required: ['country', 'currency', 'payment_method_type'],
  additionalProperties: false,
  properties: {
    country: countrySchema,
    currency: currencySchema,
    payment_method_type: { enum: [...PAYMENT_METHOD_TYPES] },
    operator: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
    is_enabled: { type: 'boolean' },
  },
};

const capabilitySchema = resourceSchema('payment_capability', ['country', 'currency', 'payment_method_type', 'is_enabled', 'status'], {
  country: { type: 'string' },
  currency: { type: 'string' },
  payment_method_type: { enum: [...PAYMENT_METHOD_TYPES] },
  operator: { type: ['string', 'null'] },
  is_enabled: { type: 'boolean' },
  status: { enum: ['active', 'suspended'] },
  suspension_reason: { type: ['string', 'null'] },
  created: { type: 'integer' },
  updated: { type: 'integer' },
  livemode: { type: 'boolean' },
});

/**
 * /api/v1/payment_capabilities: what each merchant may use, per country, currency, method and
 * operator (docs/platform.md). Seven operations: list, create, retrieve, update
 * (is_enabled), suspend, resume, delete.
 */
export function paymentCapabilitiesFamily(knex: Knex, capabilities: PaymentCapabilities): Family {
  return {
    name: 'payment_capabilities',
    description: 'The merchant\'s own switches of payment methods per country, currency and operator: enabled, disabled or suspended.',
    routes: [
      route<unknown, CursorQuery & { country?: string; payment_method_type?: string }>({
        method: 'get',
        path: BASE,
        summary: "List the merchant's payment capabilities, newest first (cursor-paged), by country or method; a method without one follows the catalog",
        auth: read,
        query: cursorQuery({ country: countrySchema, payment_method_type: { enum: [...PAYMENT_METHOD_TYPES] } }),
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
        auth: write,
        body: createBody,
        fields: { paymentMethodType: 'payment_method_type' },
        response: capabilitySchema,
        handler: (ctx) => capabilities.create(ctx.owner, ctx.body, ctx.actor),
      }),
      retrieveRoute({ path: `${BASE}/:id`, noun: 'payment capability', auth: read, response: capabilitySchema, summary: 'Retrieve a payment capability', find: (owner, id) => findPaymentCapability(knex, owner, id) }),
      route<{ is_enabled: boolean }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id`,
        fields: { capabilityId: 'id' },
        summary: 'Enable or disable a payment capability',
        auth: write,
        params: idParams,
        body: { type: 'object', required: ['is_enabled'], additionalProperties: false, properties: { is_enabled: { type: 'boolean' } } },
        response: capabilitySchema,
        handler: (ctx) => capabilities.update(ctx.owner, ctx.params.id, ctx.body.is_enabled, ctx.actor),
      }),
      route<{ reason: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id/suspend`,
        fields: { capabilityId: 'id' },
        summary: 'Suspend a payment capability, with a reason: the method is refused until it is resumed',
        auth: write,
        params: idParams,
        body: { type: 'object', required: ['reason'], additionalProperties: false, properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } } },
        response: capabilitySchema,
        handler: (ctx) => capabilities.suspend(ctx.owner, ctx.params.id, ctx.body.reason, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id/resume`,
        fields: { capabilityId: 'id' },
        summary: 'Resume a suspended payment capability',
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
        auth: write,
        params: idParams,
        response: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'payment_capability' }, deleted: { const: true } } },
        handler: async (ctx) => {
          await capabilities.delete(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'payment_capability', deleted: true };
        },
      }),
    ],
  };
}
