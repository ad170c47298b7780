import type { Knex } from 'knex';
import type { CreatePaymentLinkInput, PaymentLinks } from '../../../../packages/families/checkout/payment-link/commands.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { findPaymentLink, listPaymentLinks } from '../../../../projections/checkout/payment-links.js';
import { amountFields, checkoutMethodTypesSchema, countrySchema, cursorListSchema, cursorQuery, idParams, resourceSchema, retrieveRoute, returnUrlSchema } from '../shared.js';

const createBody = {
  type: 'object',
  required: ['amount', 'currency', 'country'],
  additionalProperties: false,
  properties: {
    ...amountFields,
    country: countrySchema,
    feeMode: { enum: ['merchant', 'customer'] },
    description: { type: ['string', 'null'], maxLength: 500 },
    paymentMethodTypes: checkoutMethodTypesSchema,
    expiresAt: { type: ['string', 'null'], format: 'date-time' },
    isSingleUse: { type: 'boolean' },
    successUrl: { ...returnUrlSchema, type: ['string', 'null'] },
    cancelUrl: { ...returnUrlSchema, type: ['string', 'null'] },
  },
};

const paymentLinkSchema = resourceSchema('payment_link', ['url', 'slug', 'amount', 'currency', 'country', 'feeMode', 'paymentMethodTypes', 'isSingleUse', 'active', 'livemode', 'created'], {
  url: { type: 'string' },
  slug: { type: 'string' },
  amount: { type: 'integer' },
  currency: { type: 'string' },
  country: { type: 'string' },
  feeMode: { enum: ['merchant', 'customer'] },
  description: { type: ['string', 'null'] },
  paymentMethodTypes: { type: 'array', items: { type: 'string' } },
  expiresAt: { type: ['string', 'null'], format: 'date-time' },
  isSingleUse: { type: 'boolean' },
  successUrl: { type: ['string', 'null'] },
  cancelUrl: { type: ['string', 'null'] },
  active: { type: 'boolean' },
  deactivatedAt: { type: ['string', 'null'], format: 'date-time' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

/** /api/v1/payment_links: a fixed amount anyone with the link pays on a hosted page (GET /pay/{slug}). */
export function paymentLinksFamily(knex: Knex, links: PaymentLinks): Family {
  const read = { scope: 'payment_links.read', environmentHeader: 'optional' } as const;
  const write = { scope: 'payment_links.write', environmentHeader: 'optional' } as const;
  return {
    name: 'payment-links',
    description: 'Payment links: one reusable address a merchant shares, where each customer pays through a checkout session.',
    routes: [
      route<CreatePaymentLinkInput>({
        method: 'post',
        path: '/api/v1/payment_links',
        summary: 'Create a payment link; customers pay it at its `url`',
        auth: write,
        body: createBody,
        response: paymentLinkSchema,
        handler: (ctx) => links.create(ctx.owner, ctx.body, ctx.actor),
      }),
      route<unknown, CursorQuery & { active?: boolean }>({
        method: 'get',
        path: '/api/v1/payment_links',
        summary: 'List payment links, newest first; `active=true` only those that take payments, `active=false` the deactivated (an expired link is still `active` until deactivated: compare `expiresAt`)',
        auth: read,
        query: cursorQuery({ active: { type: 'boolean' } }),
        response: cursorListSchema(paymentLinkSchema),
        handler: (ctx) => listPaymentLinks(knex, ctx.owner, ctx.query, '/api/v1/payment_links', { active: ctx.query.active }),
      }),
      retrieveRoute({
        path: '/api/v1/payment_links/:id',
        noun: 'payment link',
        summary: 'Retrieve a payment link',
        auth: read,
        response: paymentLinkSchema,
        find: (owner, id) => findPaymentLink(knex, owner, id),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payment_links/:id/deactivate',
        fields: { paymentLinkId: 'id' },
        summary: 'Deactivate a payment link: its page no longer takes payments (a second call changes nothing)',
        auth: write,
        params: idParams,
        response: paymentLinkSchema,
        handler: (ctx) => links.deactivate(ctx.owner, ctx.params.id, ctx.actor),
      }),
    ],
  };
}
