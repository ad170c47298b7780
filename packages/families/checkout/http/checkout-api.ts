import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { getCurrency } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import type { CheckoutPaymentMethod, CheckoutSessionPayments } from '../checkout-session/commands.js';
import { Reply } from '#packages/http/context.js';
import type { DocumentComposer } from '#packages/messaging/messages.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findPublicCheckoutSession, type CheckoutSessionView } from '../read/checkout-sessions.js';
import { sessionSchema } from './checkout-sessions.js';
import { confirmationFields } from '#packages/families/payments/http/index.js';
import { countrySchema, returnUrlSchema } from '#packages/http/route-kit.js';
import { nextUrl, sessionIdParams } from './schemas.js';

interface PayBody {
  session_id?: string;
  return_url?: string;
  payment_method: CheckoutPaymentMethod;
  collected?: Record<string, string>;
}

/** The page's payment method: the country is the session's unless given. */
const paymentMethod = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: {
      enum: ['mobile_money', 'card'],
      description: 'How the customer pays: one the session accepts (`IKW-CHK-004`)',
      'x-enumDescriptions': { mobile_money: 'Mobile money: give `mobile_money`', card: 'A card: give `card`' },
    },
    mobile_money: {
      type: 'object',
      required: ['operator', 'msisdn'],
      additionalProperties: false,
      description: 'The wallet that pays, for `type: mobile_money`',
      properties: {
        country: { ...countrySchema, description: "The wallet's country; the session's when left out, and it must be the session's" },
        operator: { type: 'string', minLength: 1, maxLength: 64, description: "The operator (`orange`, `wave`…), one of the country's payin operators" },
        msisdn: { type: 'string', minLength: 4, maxLength: 32, description: 'The mobile money number, international or national; the operator asks its owner to approve' },
      },
    },
    card: {
      type: 'object',
      required: ['token'],
      additionalProperties: false,
      description: 'The card that pays, for `type: card`',
      properties: { token: { type: 'string', minLength: 1, maxLength: 255, description: 'A card token (in the sandbox, a test token such as `tok_visa`)' } },
    },
  },
  allOf: [
    { if: { properties: { type: { const: 'mobile_money', description: 'Mobile money' } }, required: ['type'] }, then: { properties: { mobile_money: true }, required: ['mobile_money'] } },
    { if: { properties: { type: { const: 'card', description: 'A card' } }, required: ['type'] }, then: { properties: { card: true }, required: ['card'] } },
  ],
};

const payBody = {
  type: 'object',
  required: ['payment_method'],
  additionalProperties: false,
  properties: {
    session_id: { type: 'string', maxLength: 255, description: "The session's id again, for pages that send it: it must be the path's" },
    return_url: { ...returnUrlSchema, description: 'Where the payer comes back to after a page they had to open (`nextAction`), such as a card check' },
    payment_method: { ...paymentMethod, description: 'How the customer pays' },
    // What the page collected from the customer besides the payment method (name, e-mail, …): kept on the payment's metadata.
    collected: {
      type: 'object',
      maxProperties: 10,
      propertyNames: { pattern: '^[A-Za-z0-9_]{1,30}$' },
      additionalProperties: { type: 'string', maxLength: 500 },
      description: "Up to 10 fields your page gathered from the customer (name, e-mail…): kept on the payment intent's metadata as `collected_<name>`",
    },
  },
};

const statusSchema = {
  type: 'object',
  required: ['object', 'sessionId', 'status', 'paymentStatus'],
  properties: {
    object: { const: 'checkout.session_status', description: 'The kind of object: always `checkout.session_status`' },
    sessionId: { type: 'string', description: 'The session' },
    status: sessionSchema.properties.status,
    paymentStatus: sessionSchema.properties.paymentStatus,
    paymentIntentId: { type: ['string', 'null'], description: "The latest attempt's payment intent, or null before one" },
    operationId: { type: ['string', 'null'], description: "The latest attempt's operation (`op_…`), or null" },
    lastPaymentError: { type: ['object', 'null'], description: "Why the latest attempt failed, as the payment intent's `last_payment_error` says; null unless it failed" },
    nextAction: { type: ['object', 'null'], description: "What the customer must do while the payment waits (approve on the phone, open a card check page): the payment intent's `next_action`; null when nothing" },
    redirectUrl: { type: ['string', 'null'], description: 'Once final, where to send the customer: the success or cancel URL with `status`, `payment_intent` and `operation_id`; null while open or without such a URL' },
  },
};

const receiptSchema = {
  type: 'object',
  required: ['object', 'sessionId', 'paymentIntentId', 'amountPaid', 'currency'],
  properties: {
    object: { const: 'checkout.receipt', description: 'The kind of object: always `checkout.receipt`' },
    sessionId: { type: 'string', description: 'The session paid' },
    paymentIntentId: { type: 'string', description: 'The payment intent that paid it' },
    operationId: { type: ['string', 'null'], description: 'The operation that paid it (`op_…`), or null' },
    amountPaid: { type: 'integer', description: 'What the customer paid, in minor units (the fee included when they carried it)' },
    currency: { type: 'string', description: 'The currency, lower case' },
    description: { type: ['string', 'null'], description: 'What was paid for, or null' },
    paymentMethod: { type: ['object', 'null'], description: "How it was paid, as the payment intent's `payment_method` says (the number masked)" },
    livemode: { type: 'boolean', description: '`true` for a live payment, `false` for sandbox' },
  },
};

/** Whether the client asked for the PDF rather than the JSON receipt. */
const wantsPdf = (accept: string | undefined) => /application\/pdf/.test(accept ?? '') && !/application\/json/.test(accept ?? '');

/** A paid session's receipt as a PDF, written with the merchant's `receipt` template or the built-in one (docs/templates.md). */
async function receiptPdf(knex: Knex, documents: DocumentComposer, v: CheckoutSessionView, at: Date): Promise<Buffer> {
  const intent = v.intent!;
  const merchant = await knex('read.merchants').select('name').where({ id: v.owner.merchantId }).first<{ name: string } | undefined>();
  const minorUnits = getCurrency(intent.currency)?.minorUnits ?? 0;
  const amount = (intent.amount_received / 10 ** minorUnits).toFixed(minorUnits);
  const values = {
    merchant_name: merchant?.name ?? '',
    amount,
    currency: intent.currency,
    payment_id: intent.id,
    ...(v.session.customerEmail ? { customer_email: v.session.customerEmail } : {}),
    paid_at: at.toISOString().slice(0, 10),
  };
  return documents.document(v.owner, 'receipt', values, at);
}

/**
 * /api/checkout/{sessionId}: the API of the hosted page (and of merchants' own pages): public,
 * by the session's unguessable id. Read the session, poll its status, pay, cancel, get the receipt.
 */
export function checkoutApiRoutes(knex: Knex, clock: Clock, sessions: CheckoutSessionPayments, documents: DocumentComposer): RouteGroup {
  const view = async (id: string): Promise<CheckoutSessionView> => {
    const found = await findPublicCheckoutSession(knex, id, clock.now());
    if (!found) throw new ApiError('IKW-RES-001', `No such checkout session: '${id}'`, 'sessionId');
    return found;
  };
  return {
    name: 'checkout-api',
    description: "What the hosted checkout page calls from the payer's browser: the session, its status, paying, cancelling and the receipt. No credential: the session id is the key.",
    routes: [
      route<unknown, unknown, { sessionId: string }>({
        method: 'get',
        path: '/api/checkout/:sessionId',
        summary: 'The checkout session as its page shows it',
        description:
          'For a payment page of your own, by the session id alone (no credential: it cannot be guessed): the amount, currency, country and accepted methods to show, and where the session stands. An unknown id is `404 IKW-RES-001`.',
        refusals: [],
        auth: 'public',
        params: sessionIdParams,
        response: sessionSchema,
        handler: async (ctx) => (await view(ctx.params.sessionId)).session,
      }),
      route<unknown, unknown, { sessionId: string }>({
        method: 'get',
        path: '/api/checkout/:sessionId/status',
        summary: 'Where the payment stands, for a page that polls until it is final; `redirectUrl` is where to send the customer then',
        description:
          'What a page polls, every few seconds, while the customer approves the payment: `status` and `paymentStatus`, what the customer must do (`nextAction`), why an attempt failed, and once final `redirectUrl`, where to send them.',
        refusals: [],
        auth: 'public',
        params: sessionIdParams,
        response: statusSchema,
        handler: async (ctx) => {
          const v = await view(ctx.params.sessionId);
          return {
            object: 'checkout.session_status',
            sessionId: v.session.id,
            status: v.session.status,
            paymentStatus: v.session.paymentStatus,
            paymentIntentId: v.intent?.id ?? null,
            operationId: v.intent?.latest_operation ?? null,
            lastPaymentError: v.intent?.last_payment_error ?? null,
            // What the customer must do while the payment waits (approve on the phone, a 3-D Secure page): the intent's next_action.
            nextAction: v.intent?.next_action ?? null,
            redirectUrl: nextUrl(v),
          };
        },
      }),
      route<PayBody, unknown, { sessionId: string }>({
        method: 'post',
        path: '/api/checkout/:sessionId/pay',
        fields: { ...confirmationFields, checkoutSessionId: 'id' },
        summary: 'Pay the session with a payment method; a failed attempt may be followed by another',
        description:
          "Pays an open session from a page of your own: makes the attempt's payment intent and confirms it with `payment_method` (the customer approves on their phone; a card may need `nextAction`). Poll the status for the outcome. After a failed attempt another may follow; while one is with the operator, paying again answers the session as it is. A session complete, canceled or expired is `IKW-CHK-001`, a method it does not accept `IKW-CHK-004`, a single-use link paid in another session `IKW-CHK-003`. Numbers are rate-limited per number, session and link (`429 IKW-LIM-001`).",
        refusals: [
          'IKW-CHK-001',
          'IKW-CHK-003',
          'IKW-CHK-004',
          'IKW-VAL-005',
          'IKW-VAL-006',
          'IKW-VAL-007',
          'IKW-VAL-008',
          'IKW-VAL-010',
          'IKW-RES-002',
          'IKW-RES-003',
          'IKW-CAP-001',
          'IKW-CAP-002',
          'IKW-PRV-001',
          'IKW-PRV-002',
          'IKW-PRV-005',
          'IKW-ACT-006',
        ],
        emits: ['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_action', 'payment_intent.succeeded', 'payment_intent.payment_failed'],
        auth: 'public',
        params: sessionIdParams,
        body: payBody,
        response: sessionSchema,
        handler: (ctx) => {
          if (ctx.body.session_id !== undefined && ctx.body.session_id !== ctx.params.sessionId) {
            throw new ApiError('IKW-VAL-001', 'session_id must be the session of the path', 'session_id');
          }
          return sessions.pay(ctx.params.sessionId, ctx.body.payment_method, ctx.body.return_url ?? null, ctx.actor, { collected: ctx.body.collected ?? {} });
        },
      }),
      route<unknown, unknown, { sessionId: string }>({
        method: 'post',
        path: '/api/checkout/:sessionId/cancel',
        fields: { checkoutSessionId: 'id' },
        summary: 'Cancel the session (not while a payment is with the operator, nor once paid)',
        description:
          'Cancels the session when the customer gives up: its unpaid payment intent is canceled and it takes no more payments. Not while a payment is with the operator (`IKW-RES-002`: it may still be paid), nor once complete or expired (`IKW-CHK-001`); canceling a canceled session answers it unchanged.',
        refusals: ['IKW-CHK-001', 'IKW-RES-002'],
        emits: ['payment_intent.canceled'],
        auth: 'public',
        params: sessionIdParams,
        response: sessionSchema,
        handler: (ctx) => sessions.cancel(ctx.params.sessionId, ctx.actor),
      }),
      route<unknown, unknown, { sessionId: string }>({
        method: 'get',
        path: '/api/checkout/:sessionId/receipt',
        summary: 'The receipt of a paid session; as a PDF (the merchant’s receipt template) with Accept: application/pdf',
        description: 'The proof of a paid session, for the customer: JSON by default, or a PDF written with your `receipt` template with `Accept: application/pdf`. A session not paid is `IKW-CHK-001`.',
        refusals: ['IKW-CHK-001'],
        auth: 'public',
        params: sessionIdParams,
        response: receiptSchema,
        answers: { file: 'application/pdf' },
        handler: async (ctx) => {
          const v = await view(ctx.params.sessionId);
          if (v.session.status !== 'complete' || !v.intent) throw new ApiError('IKW-CHK-001', 'The checkout session has not been paid; a receipt comes with the payment', 'sessionId');
          if (wantsPdf(ctx.header('accept'))) return Reply.stream(Readable.from(await receiptPdf(knex, documents, v, clock.now())), 'application/pdf');
          return {
            object: 'checkout.receipt',
            sessionId: v.session.id,
            paymentIntentId: v.intent.id,
            operationId: v.intent.latest_operation,
            amountPaid: v.intent.amount_received,
            currency: v.intent.currency,
            description: v.session.description,
            paymentMethod: v.intent.payment_method,
            livemode: v.session.livemode,
          };
        },
      }),
    ],
  };
}
