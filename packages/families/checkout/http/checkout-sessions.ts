import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { CheckoutSessionPayments, CreateSessionInput, FeeQuoteInput } from '../checkout-session/commands.js';
import type { CheckoutSessionOpening } from '../checkout-session/opening.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import type { CheckoutSessionStatus } from '../checkout-session/events.js';
import { findCheckoutSession, listCheckoutSessions } from '../read/checkout-sessions.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { amountFields, countrySchema, cursorListSchema, cursorQuery, idParams, retrieveRoute, returnUrlSchema } from '#packages/http/route-kit.js';
import { CHECKOUT_METHOD_WORDS, checkoutMethodTypesSchema, checkoutSessionSchema } from './schemas.js';

const SESSION_STATUS_WORDS = {
  open: 'Takes payments (`paymentStatus` says how the latest attempt went)',
  complete: 'Paid: the latest attempt succeeded',
  canceled: "Canceled by the customer or the page's API",
  expired: '24 hours passed (`expiresAt`), or you expired it, with nothing paid',
};
const PAYMENT_STATUS_WORDS = {
  unpaid: 'No attempt has reached the operator yet (or the latest was canceled)',
  processing: 'An attempt is with the operator',
  paid: 'The latest attempt succeeded',
  failed: 'The latest attempt failed: the customer may try again',
};
const FEE_MODE_WORDS = {
  merchant: 'The customer pays `amount`; the fee comes off what you receive',
  customer: 'The customer pays `amount` plus the fee of the operator they choose (payment links)',
};

/**
 * The checkout session as every route answers it (the merchant's API and the page's), with its
 * words (`checkoutSessionSchema` of shared.ts carries none).
 */
export const sessionSchema = {
  ...checkoutSessionSchema,
  properties: {
    ...checkoutSessionSchema.properties,
    id: { type: 'string', description: "The session's id (`cs_` and 24 random characters): it is the key of its public page and API" },
    url: { type: 'string', description: 'The hosted page to send the customer to' },
    status: { enum: ['open', 'complete', 'canceled', 'expired'], description: 'Where the session stands', 'x-enumDescriptions': SESSION_STATUS_WORDS },
    paymentStatus: { enum: ['unpaid', 'processing', 'paid', 'failed'], description: 'Where its latest payment attempt stands', 'x-enumDescriptions': PAYMENT_STATUS_WORDS },
    amount: { type: 'integer', description: 'The amount, in minor units of the currency' },
    amountTotal: { type: ['integer', 'null'], description: 'What the customer pays, in minor units: `amount` when you carry the fee; with `feeMode: customer`, `amount` plus the fee of the operator chosen, null until one is' },
    currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case (`xof`)' },
    country: { type: 'string', description: 'The country the customer pays in, upper case' },
    description: { type: ['string', 'null'], description: "What is paid for (a payment link's description), or null" },
    paymentMethodTypes: { type: 'array', items: { type: 'string' }, description: 'How the customer may pay: `mobile_money`, `card`' },
    successUrl: { type: ['string', 'null'], description: 'Where the customer lands after paying, or null' },
    cancelUrl: { type: ['string', 'null'], description: 'Where the customer lands after canceling, or null' },
    customerEmail: { type: ['string', 'null'], description: "The customer's e-mail address, or null" },
    customerPhone: { type: ['string', 'null'], description: "The customer's phone number (E.164), or null" },
    paymentLinkId: { type: ['string', 'null'], description: 'The payment link it was opened for, or null' },
    feeMode: { enum: ['merchant', 'customer'], description: 'Who carries the processing fee', 'x-enumDescriptions': FEE_MODE_WORDS },
    deferPaymentIntentCreation: { type: 'boolean', description: '`true`: no payment intent is made until the customer pays' },
    paymentIntentId: { type: ['string', 'null'], description: "The latest attempt's payment intent, or null before one" },
    metadata: { type: 'object', description: 'Your key–value pairs, as given' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When it stops taking payments (24 hours after it opened, or when you expired it)' },
  },
};

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...amountFields,
    country: { ...countrySchema, description: 'The country the customer pays in (ISO 3166-1, any case): its operators are offered' },
    paymentMethodTypes: { ...checkoutMethodTypesSchema, description: 'How the customer may pay (one or both); `["mobile_money"]` when left out' },
    successUrl: { ...returnUrlSchema, type: ['string', 'null'], description: 'Where the customer lands after paying, with `status`, `payment_intent` and `operation_id` added' },
    cancelUrl: { ...returnUrlSchema, type: ['string', 'null'], description: 'Where the customer lands after canceling, with `status=canceled`' },
    customerEmail: { type: ['string', 'null'], format: 'email', maxLength: 254, description: "The customer's e-mail address: names your customer of that address on the payment" },
    customerPhone: { type: ['string', 'null'], minLength: 4, maxLength: 32, description: "The customer's phone number, international or national in `country` (`IKW-VAL-007` otherwise)" },
    paymentLinkId: { type: ['string', 'null'], format: 'uuid', description: "A payment link of yours to open the session for: the session takes the link's amount, currency, country and fee mode (do not send them)" },
    paymentLinkV2Id: { type: ['string', 'null'], format: 'uuid', description: 'The same as `paymentLinkId` (the interface names both); give one, or the same link in both' },
    deferPaymentIntentCreation: { type: 'boolean', description: '`true`: make the payment intent when the customer pays, not now; `false` when left out (sessions of payment links always defer)' },
    metadata: { type: 'object', maxProperties: 50, propertyNames: { minLength: 1, maxLength: 40 }, description: 'Up to 50 key–value pairs of your own; the payment intents keep the string values' },
  },
};

const feeQuoteBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    paymentMethodType: { enum: ['mobile_money', 'card'], description: 'The method to price; one the session accepts (`IKW-CHK-004`)', 'x-enumDescriptions': CHECKOUT_METHOD_WORDS },
    operator: { type: 'string', minLength: 1, maxLength: 64, description: "For `mobile_money` (required then): the operator, one of the session country's" },
  },
};

const feeQuoteSchema = {
  type: 'object',
  required: ['object', 'sessionId', 'currency', 'amount', 'fee', 'feeMode', 'amountTotal', 'merchantReceives', 'paymentMethodType'],
  properties: {
    object: { const: 'checkout.fee_quote', description: 'The kind of object: always `checkout.fee_quote`' },
    sessionId: { type: 'string', description: 'The session priced' },
    currency: { type: 'string', description: 'The currency, lower case' },
    amount: { type: 'integer', description: "The session's amount, in minor units" },
    fee: { type: 'integer', description: 'The processing fee of paying this way, in minor units' },
    feeMode: { enum: ['merchant', 'customer'], description: 'Who carries the fee', 'x-enumDescriptions': FEE_MODE_WORDS },
    amountTotal: { type: 'integer', description: 'What the customer pays, in minor units' },
    merchantReceives: { type: 'integer', description: 'What you receive, in minor units' },
    paymentMethodType: { enum: ['mobile_money', 'card'], description: 'The method priced', 'x-enumDescriptions': CHECKOUT_METHOD_WORDS },
    operator: { type: ['string', 'null'], description: 'The operator priced, or null for a card' },
  },
};

/** /api/v1/checkout: the merchant opens a hosted checkout session, lists and reads them, prices a session's fee and expires one. */
export function checkoutSessionsRoutes(knex: Knex, clock: Clock, opening: CheckoutSessionOpening, payments: CheckoutSessionPayments): RouteGroup {
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
        description:
          'Opens a hosted payment page for one order: send the customer to `url`, where they pay by mobile money (or card) without you handling the number. Give `amount`, `currency` and `country`, or a `paymentLinkId` whose values the session takes. The session is open for 24 hours; each attempt is a payment intent (made now unless `deferPaymentIntentCreation`), followed by the `payment_intent.*` webhooks, and the customer lands on `successUrl` or `cancelUrl`. A retry with the same `Idempotency-Key` answers the same session.',
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-007', 'IKW-VAL-008', 'IKW-VAL-009', 'IKW-CHK-002', 'IKW-CHK-003', 'IKW-CFG-001', 'IKW-CFG-002', 'IKW-ACT-005', 'IKW-ACT-006'],
        emits: ['payment_intent.created'],
        auth: write,
        body: createBody,
        response: sessionSchema,
        handler: (ctx) => opening.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: CheckoutSessionStatus; paymentLinkId?: string }>({
        method: 'get',
        path: '/api/v1/checkout/sessions',
        summary: 'List checkout sessions, newest first, each as it stands now; `status` only those of that status, `paymentLinkId` only those opened for that payment link',
        auth: read,
        description:
          "Your checkout sessions, newest first, each as it stands now, for the dashboard; `status` and `paymentLinkId` narrow the list, such as a payment link's payments. Cursor-paged with `limit`, `starting_after` and `ending_before` (docs/pagination.md).",
        refusals: [],
        query: cursorQuery({
          status: { enum: ['open', 'complete', 'canceled', 'expired'], description: 'Only the sessions in this state', 'x-enumDescriptions': SESSION_STATUS_WORDS },
          paymentLinkId: { type: 'string', format: 'uuid', description: 'Only the sessions opened for this payment link' },
        }),
        response: cursorListSchema(sessionSchema),
        handler: (ctx) => listCheckoutSessions(knex, ctx.owner, ctx.query, '/api/v1/checkout/sessions', { status: ctx.query.status, paymentLinkId: ctx.query.paymentLinkId }, clock.now()),
      }),
      {
        ...retrieveRoute({
          path: '/api/v1/checkout/sessions/:id',
          noun: 'checkout session',
          summary: 'Retrieve a checkout session, with where its payment stands',
          auth: read,
          response: sessionSchema,
          find: (owner, id) => findCheckoutSession(knex, owner, id, clock.now()),
        }),
        description: "The session as it stands: `status`, how its latest attempt went (`paymentStatus`) and its payment intent. Use it to check an order whose webhook you missed; another merchant's session is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<FeeQuoteInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/checkout/sessions/:id/fee_quote',
        fields: { checkoutSessionId: 'id' },
        summary: "The fee of paying the session by a method (and operator), what the customer pays and what the merchant receives under the session's fee mode",
        description:
          "Prices one way of paying the session, before the customer chooses: the fee of `paymentMethodType` (and `operator`), what the customer pays (`amountTotal`) and what you receive, under the session's fee mode. It changes nothing. A method the session does not accept is `IKW-CHK-004`.",
        refusals: ['IKW-CHK-004', 'IKW-VAL-005', 'IKW-VAL-008'],
        auth: read,
        params: idParams,
        body: feeQuoteBody,
        response: feeQuoteSchema,
        handler: (ctx) => payments.feeQuote(ctx.owner, ctx.params.id, ctx.body),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/checkout/sessions/:id/expire',
        fields: { checkoutSessionId: 'id' },
        summary:
          'Expire an open session now: it takes no payment, its unpaid payment intent is canceled and its page says it expired (a session paid, canceled or expired is 409 IKW-CHK-001; one whose payment is with the operator, 409 IKW-RES-002)',
        description:
          'Ends an open session before its 24 hours, as when the order it was for is gone: it takes no more payments, its unpaid payment intent is canceled, its page says it expired, and `expiresAt` becomes now. A session paid, canceled or expired is `IKW-CHK-001`; one whose payment is with the operator is `IKW-RES-002` (it may still be paid).',
        refusals: ['IKW-CHK-001', 'IKW-RES-002'],
        emits: ['payment_intent.canceled'],
        auth: write,
        params: idParams,
        response: sessionSchema,
        handler: (ctx) => payments.expire(ctx.owner, ctx.params.id, ctx.actor),
      }),
    ],
  };
}
