import type { Knex } from 'knex';
import type { CreatePaymentLinkInput, PaymentLinks } from '../payment-link/commands.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { findPaymentLink, listPaymentLinks } from '../read/payment-links.js';
import { amountFields, countrySchema, cursorListSchema, cursorQuery, idParams, resourceSchema, retrieveRoute, returnUrlSchema } from '#packages/http/route-kit.js';
import { checkoutMethodTypesSchema } from './schemas.js';

const FEE_MODE_WORDS = {
  merchant: 'The customer pays `amount`; the fee comes off what you receive',
  customer: 'The customer pays `amount` plus the fee of the operator they choose; you receive `amount`',
};

const createBody = {
  type: 'object',
  required: ['amount', 'currency', 'country'],
  additionalProperties: false,
  properties: {
    ...amountFields,
    country: { ...countrySchema, description: 'The country customers pay in (ISO 3166-1, any case): its operators are offered' },
    feeMode: { enum: ['merchant', 'customer'], description: 'Who carries the processing fee; `merchant` when left out', 'x-enumDescriptions': FEE_MODE_WORDS },
    description: { type: ['string', 'null'], maxLength: 500, description: 'What is paid for, as the page shows it' },
    paymentMethodTypes: { ...checkoutMethodTypesSchema, description: 'How customers may pay (one or both); `["mobile_money"]` when left out' },
    expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'When the link stops opening sessions (ISO 8601, in the future); never when left out' },
    isSingleUse: { type: 'boolean', description: '`true`: the link takes one payment, then its page says it is no longer available; `false` when left out' },
    successUrl: { ...returnUrlSchema, type: ['string', 'null'], description: 'Where the customer lands after paying, with `status`, `payment_intent` and `operation_id` added; the page says the payment was received when left out' },
    cancelUrl: { ...returnUrlSchema, type: ['string', 'null'], description: 'Where the customer lands after canceling, with `status=canceled`' },
  },
};

const paymentLinkSchema = resourceSchema('payment_link', ['url', 'slug', 'amount', 'currency', 'country', 'feeMode', 'paymentMethodTypes', 'isSingleUse', 'active', 'livemode', 'created'], {
  url: { type: 'string', description: 'The address to share: each visit opens (or reopens) a checkout session and shows its hosted page' },
  slug: { type: 'string', description: 'The unguessable part of `url` (16 characters)' },
  amount: { type: 'integer', description: 'The amount, in minor units of the currency' },
  currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case (`xof`)' },
  country: { type: 'string', description: 'The country customers pay in, upper case' },
  feeMode: { enum: ['merchant', 'customer'], description: 'Who carries the processing fee', 'x-enumDescriptions': FEE_MODE_WORDS },
  description: { type: ['string', 'null'], description: 'What is paid for, or null' },
  paymentMethodTypes: { type: 'array', items: { type: 'string' }, description: 'How customers may pay: `mobile_money`, `card`' },
  expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'When it stops opening sessions, or null for never' },
  isSingleUse: { type: 'boolean', description: '`true`: it takes one payment' },
  successUrl: { type: ['string', 'null'], description: 'Where customers land after paying, or null' },
  cancelUrl: { type: ['string', 'null'], description: 'Where customers land after canceling, or null' },
  active: { type: 'boolean', description: '`false` once deactivated; an expired link stays `true` (compare `expiresAt`)' },
  deactivatedAt: { type: ['string', 'null'], format: 'date-time', description: 'When it was deactivated, or null' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

/** /api/v1/payment_links: a fixed amount anyone with the link pays on a hosted page (GET /pay/{slug}). */
export function paymentLinksRoutes(knex: Knex, links: PaymentLinks): RouteGroup {
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
        description:
          "Makes a fixed-amount link to share (by message, QR code, a button): each visit of `url` opens a checkout session of the link's values and sends the customer to its hosted page, where they pay by mobile money (or card). Nothing moves until a customer pays; each payment is a payment intent of its own, followed by the `payment_intent.*` webhooks. `isSingleUse` takes one payment; `feeMode: customer` has the customer carry the fee.",
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-008', 'IKW-VAL-009', 'IKW-ACT-005', 'IKW-ACT-006'],
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
        description: 'Your payment links, newest first, for the dashboard. Cursor-paged with `limit`, `starting_after` and `ending_before` (docs/pagination.md).',
        refusals: [],
        query: cursorQuery({ active: { type: 'boolean', description: '`true`: only the links not deactivated; `false`: only the deactivated ones' } }),
        response: cursorListSchema(paymentLinkSchema),
        handler: (ctx) => listPaymentLinks(knex, ctx.owner, ctx.query, '/api/v1/payment_links', { active: ctx.query.active }),
      }),
      {
        ...retrieveRoute({
          path: '/api/v1/payment_links/:id',
          noun: 'payment link',
          summary: 'Retrieve a payment link',
          auth: read,
          response: paymentLinkSchema,
          find: (owner, id) => findPaymentLink(knex, owner, id),
        }),
        description: "The link as it stands: its `url`, values and whether it is `active`. Its payments are the sessions that name it (`GET /api/v1/checkout/sessions?paymentLinkId=…`). Another merchant's link is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payment_links/:id/deactivate',
        fields: { paymentLinkId: 'id' },
        summary: 'Deactivate a payment link: its page no longer takes payments (a second call changes nothing)',
        description: 'Stops a link for good: its `url` opens no more sessions and says so (`410`). Sessions opened before stay payable until they end. Deactivating it again answers it unchanged.',
        refusals: [],
        auth: write,
        params: idParams,
        response: paymentLinkSchema,
        handler: (ctx) => links.deactivate(ctx.owner, ctx.params.id, ctx.actor),
      }),
    ],
  };
}
