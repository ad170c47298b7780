import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import type { CheckoutSessions, CreateSessionInput, FeeQuoteInput } from '../../../../packages/families/checkout/checkout-session/commands.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import type { CheckoutSessionStatus } from '../../../../packages/families/checkout/checkout-session/events.js';
import { findCheckoutSession, listCheckoutSessions } from '../../../../projections/checkout/checkout-sessions.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { amountFields, checkoutMethodTypesSchema, checkoutSessionSchema, countrySchema, cursorListSchema, cursorQuery, idParams, retrieveRoute, returnUrlSchema } from '../shared.js';

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...amountFields,
    country: countrySchema,
    paymentMethodTypes: checkoutMethodTypesSchema,
    successUrl: { ...returnUrlSchema, type: ['string', 'null'] },
    cancelUrl: { ...returnUrlSchema, type: ['string', 'null'] },
    customerEmail: { type: ['string', 'null'], format: 'email', maxLength: 254 },
    customerPhone: { type: ['string', 'null'], minLength: 4, maxLength: 32 },
    paymentLinkId: { type: ['string', 'null'], format: 'uuid' },
    paymentLinkV2Id: { type: ['string', 'null'], format: 'uuid' },
    deferPaymentIntentCreation: { type: 'boolean' },
    metadata: { type: 'object', maxProperties: 50, propertyNames: { minLength: 1, maxLength: 40 } },
  },
};

const feeQuoteBody = {
  type: 'object',
  additionalProperties: false,
  properties: { paymentMethodType: { enum: ['mobile_money', 'card'] }, operator: { type: 'string', minLength: 1, maxLength: 64 } },
};

const feeQuoteSchema = {
  type: 'object',
  required: ['object', 'sessionId', 'currency', 'amount', 'fee', 'feeMode', 'amountTotal', 'merchantReceives', 'paymentMethodType'],
  properties: {
    object: { const: 'checkout.fee_quote' },
    sessionId: { type: 'string' },
    currency: { type: 'string' },
    amount: { type: 'integer' },
    fee: { type: 'integer' },
    feeMode: { enum: ['merchant', 'customer'] },
    amountTotal: { type: 'integer' },
    merchantReceives: { type: 'integer' },
    paymentMethodType: { enum: ['mobile_money', 'card'] },
    operator: { type: ['string', 'null'] },
  },
};

/** /api/v1/checkout: the merchant opens a hosted checkout session, lists and reads them, prices a session's fee and expires one. */
export function checkoutSessionsFamily(knex: Knex, clock: Clock, sessions: CheckoutSessions): Family {
  const read = { scope: 'checkout.read', environmentHeader: 'optional' } as const;
  const write = { scope: 'checkout.write', environmentHeader: 'optional' } as const;
  return {
    name: 'checkout-sessions',
    description: 'Checkout sessions: a hosted payment page for one amount or a payment link, that the merchant opens and follows.',
    routes: [
      route<CreateSessionInput>({
        method: 'post',
        path: '/api/v1/checkout/sessions',
        summary: 'Open a checkout session (its hosted page is `url`), with an amount or for a payment link',
        auth: write,
        body: createBody,
        response: checkoutSessionSchema,
        handler: (ctx) => sessions.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: CheckoutSessionStatus; paymentLinkId?: string }>({
        method: 'get',
        path: '/api/v1/checkout/sessions',
        summary: 'List checkout sessions, newest first, each as it stands now; `status` only those of that status, `paymentLinkId` only those opened for that payment link',
        auth: read,
        query: cursorQuery({ status: { enum: ['open', 'complete', 'canceled', 'expired'] }, paymentLinkId: { type: 'string', format: 'uuid' } }),
        response: cursorListSchema(checkoutSessionSchema),
        handler: (ctx) => listCheckoutSessions(knex, ctx.owner, ctx.query, '/api/v1/checkout/sessions', { status: ctx.query.status, paymentLinkId: ctx.query.paymentLinkId }, clock.now()),
      }),
      retrieveRoute({
        path: '/api/v1/checkout/sessions/:id',
        noun: 'checkout session',
        summary: 'Retrieve a checkout session, with where its payment stands',
        auth: read,
        response: checkoutSessionSchema,
        find: (owner, id) => findCheckoutSession(knex, owner, id, clock.now()),
      }),
      route<FeeQuoteInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/checkout/sessions/:id/fee_quote',
        fields: { checkoutSessionId: 'id' },
        summary: "The fee of paying the session by a method (and operator), what the customer pays and what the merchant receives under the session's fee mode",
        auth: read,
        params: idParams,
        body: feeQuoteBody,
        response: feeQuoteSchema,
        handler: (ctx) => sessions.feeQuote(ctx.owner, ctx.params.id, ctx.body),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/checkout/sessions/:id/expire',
        fields: { checkoutSessionId: 'id' },
        summary: 'Expire an open session now: it takes no payment, its unpaid payment intent is canceled and its page says it expired (a session paid, canceled or expired is 409 IKW-CHK-001; one whose payment is with the operator, 409 IKW-RES-002)',
        auth: write,
        params: idParams,
        response: checkoutSessionSchema,
        handler: (ctx) => sessions.expire(ctx.owner, ctx.params.id, ctx.actor),
      }),
    ],
  };
}
