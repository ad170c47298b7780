import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import { getCurrency } from '../../../../packages/catalog/index.js';
import { ApiError } from '../../../../packages/core/errors.js';
import type { CheckoutPaymentMethod, CheckoutSessions } from '../../../../packages/families/checkout/checkout-session/commands.js';
import { Reply } from '../../../../packages/http/context.js';
import type { TemplateComposer } from '../../../../packages/families/templates/composer.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findPublicCheckoutSession, type CheckoutSessionView } from '../../../../projections/checkout/checkout-sessions.js';
import { checkoutSessionSchema, confirmationFields, countrySchema, nextUrl, returnUrlSchema, sessionIdParams } from '../shared.js';

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
    type: { enum: ['mobile_money', 'card'] },
    mobile_money: {
      type: 'object',
      required: ['operator', 'msisdn'],
      additionalProperties: false,
      properties: { country: countrySchema, operator: { type: 'string', minLength: 1, maxLength: 64 }, msisdn: { type: 'string', minLength: 4, maxLength: 32 } },
    },
    card: { type: 'object', required: ['token'], additionalProperties: false, properties: { token: { type: 'string', minLength: 1, maxLength: 255 } } },
  },
  allOf: [
    { if: { properties: { type: { const: 'mobile_money' } }, required: ['type'] }, then: { properties: { mobile_money: true }, required: ['mobile_money'] } },
    { if: { properties: { type: { const: 'card' } }, required: ['type'] }, then: { properties: { card: true }, required: ['card'] } },
  ],
};

const payBody = {
  type: 'object',
  required: ['payment_method'],
  additionalProperties: false,
  properties: {
    session_id: { type: 'string', maxLength: 255 },
    return_url: returnUrlSchema,
    payment_method: paymentMethod,
    // What the page collected from the customer besides the payment method (name, e-mail, …): kept on the payment's metadata.
    collected: { type: 'object', maxProperties: 10, propertyNames: { pattern: '^[A-Za-z0-9_]{1,30}$' }, additionalProperties: { type: 'string', maxLength: 500 } },
  },
};

const statusSchema = {
  type: 'object',
  required: ['object', 'sessionId', 'status', 'paymentStatus'],
  properties: {
    object: { const: 'checkout.session_status' },
    sessionId: { type: 'string' },
    status: { enum: ['open', 'complete', 'canceled', 'expired'] },
    paymentStatus: { enum: ['unpaid', 'processing', 'paid', 'failed'] },
    paymentIntentId: { type: ['string', 'null'] },
    operationId: { type: ['string', 'null'] },
    lastPaymentError: { type: ['object', 'null'] },
    nextAction: { type: ['object', 'null'] },
    redirectUrl: { type: ['string', 'null'] },
  },
};

const receiptSchema = {
  type: 'object',
  required: ['object', 'sessionId', 'paymentIntentId', 'amountPaid', 'currency'],
  properties: {
    object: { const: 'checkout.receipt' },
    sessionId: { type: 'string' },
    paymentIntentId: { type: 'string' },
    operationId: { type: ['string', 'null'] },
    amountPaid: { type: 'integer' },
    currency: { type: 'string' },
    description: { type: ['string', 'null'] },
    paymentMethod: { type: ['object', 'null'] },
    livemode: { type: 'boolean' },
  },
};

/** Whether the client asked for the PDF rather than the JSON receipt. */
const wantsPdf = (accept: string | undefined) => /application\/pdf/.test(accept ?? '') && !/application\/json/.test(accept ?? '');

/** A paid session's receipt as a PDF, written with the merchant's `receipt` template or the built-in one (docs/templates.md). */
async function receiptPdf(knex: Knex, documents: TemplateComposer, v: CheckoutSessionView, at: Date): Promise<Buffer> {
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
export function checkoutApiFamily(knex: Knex, clock: Clock, sessions: CheckoutSessions, documents: TemplateComposer): Family {
  const view = async (id: string): Promise<CheckoutSessionView> => {
    const found = await findPublicCheckoutSession(knex, id, clock.now());
    if (!found) throw new ApiError('IKW-RES-001', `No such checkout session: '${id}'`, 'sessionId');
    return found;
  };
  return {
    name: 'checkout-api',
    description: 'What the hosted checkout page calls from the payer\'s browser: the session, its status, paying, cancelling and the receipt. No credential: the session id is the key.',
    routes: [
      route<unknown, unknown, { sessionId: string }>({
        method: 'get',
        path: '/api/checkout/:sessionId',
        summary: 'The checkout session as its page shows it',
        auth: 'public',
        params: sessionIdParams,
        response: checkoutSessionSchema,
        handler: async (ctx) => (await view(ctx.params.sessionId)).session,
      }),
      route<unknown, unknown, { sessionId: string }>({
        method: 'get',
        path: '/api/checkout/:sessionId/status',
        summary: 'Where the payment stands, for a page that polls until it is final; `redirectUrl` is where to send the customer then',
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
        auth: 'public',
        params: sessionIdParams,
        body: payBody,
        response: checkoutSessionSchema,
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
        auth: 'public',
        params: sessionIdParams,
        response: checkoutSessionSchema,
        handler: (ctx) => sessions.cancel(ctx.params.sessionId, ctx.actor),
      }),
      route<unknown, unknown, { sessionId: string }>({
        method: 'get',
        path: '/api/checkout/:sessionId/receipt',
        summary: 'The receipt of a paid session; as a PDF (the merchant’s receipt template) with Accept: application/pdf',
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
