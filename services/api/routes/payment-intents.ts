import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import { ApiError } from '../../../packages/core/errors.js';
import type { ConfirmInput, CreateInput, PaymentIntents } from '../../../packages/domain/payment-intent/commands.js';
import { CANCELLATION_REASONS, type CancellationReason, type PaymentIntentObject } from '../../../packages/domain/payment-intent/events.js';
import { METADATA_LIMITS } from '../../../packages/domain/payment-intent/metadata.js';
import { cursorListQuery, cursorPage, type CursorQuery } from '../../../packages/http/pagination.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findPaymentIntent, renderPaymentIntent } from '../../../projections/payment-intents.js';

const country = { type: 'string', pattern: '^[A-Za-z]{2}$' };
/** Metadata values that are not strings are accepted and not kept (interface, metadata rule 2). */
const metadata = { type: 'object', maxProperties: METADATA_LIMITS.keys, propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyLength } };
const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['id'] };

const createBody = {
  type: 'object',
  required: ['amount', 'currency', 'transaction_country'],
  additionalProperties: false,
  properties: {
    amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    transaction_country: country,
    payer_country: country,
    rail_country: country,
    description: { type: 'string', maxLength: 1000 },
    metadata,
    customer: { type: 'string', minLength: 1, maxLength: 255 },
    customer_email: { type: 'string', format: 'email', maxLength: 254 },
    customer_phone: { type: 'string', minLength: 4, maxLength: 32 },
  },
};

const updateBody = {
  type: 'object',
  additionalProperties: false,
  properties: { description: { type: ['string', 'null'], maxLength: 1000 }, metadata },
};

const confirmBody = {
  type: 'object',
  required: ['payment_method'],
  additionalProperties: false,
  properties: {
    payment_method: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { enum: ['mobile_money', 'card'] },
        mobile_money: {
          type: 'object',
          required: ['country', 'operator', 'msisdn'],
          additionalProperties: false,
          properties: {
            country,
            operator: { type: 'string', minLength: 1, maxLength: 64 },
            msisdn: { type: 'string', minLength: 4, maxLength: 32 },
            preferred_flow: { type: 'string', maxLength: 64 },
          },
        },
        card: { type: 'object', required: ['token'], additionalProperties: false, properties: { token: { type: 'string', minLength: 1, maxLength: 255 } } },
      },
      allOf: [
        // `required` in each `if`: without it a missing type matches the first `if`, and the error names mobile_money, not type.
        { if: { properties: { type: { const: 'mobile_money' } }, required: ['type'] }, then: { properties: { mobile_money: true }, required: ['mobile_money'] } },
        { if: { properties: { type: { const: 'card' } }, required: ['type'] }, then: { properties: { card: true }, required: ['card'] } },
      ],
    },
    return_url: { type: 'string', maxLength: 2048, pattern: '^https?://[^\\s]+$' },
  },
};

const cancelBody = {
  type: 'object',
  additionalProperties: false,
  properties: { cancellation_reason: { enum: [...CANCELLATION_REASONS] } },
};

const listQuery = {
  ...cursorListQuery,
  properties: { ...cursorListQuery.properties, customer: { type: 'string', maxLength: 255 } },
};

const paymentIntentSchema = {
  type: 'object',
  required: ['id', 'object', 'created', 'livemode', 'amount', 'currency', 'status', 'metadata'],
  properties: {
    id: { type: 'string' },
    object: { const: 'payment_intent' },
    created: { type: 'integer' },
    livemode: { type: 'boolean' },
    amount: { type: 'integer' },
    currency: { type: 'string' },
    status: { enum: ['requires_payment_method', 'processing', 'requires_action', 'succeeded', 'failed', 'canceled'] },
    description: { type: ['string', 'null'] },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    next_action: { type: ['object', 'null'] },
    customer: { type: ['string', 'null'] },
  },
};

/** /api/v1/payment-intents: create, retrieve, update, list, confirm, cancel. */
export function paymentIntentsFamily(knex: Knex, paymentIntents: PaymentIntents): Family {
  const read = { scope: 'payment_intents.read', environmentHeader: 'optional' } as const;
  const write = { scope: 'payment_intents.write', environmentHeader: 'optional' } as const;
  return {
    name: 'payment-intents',
    routes: [
      route<CreateInput>({
        method: 'post',
        path: '/api/v1/payment-intents',
        summary: 'Create a payment intent',
        auth: write,
        body: createBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { customer?: string }>({
        method: 'get',
        path: '/api/v1/payment-intents',
        summary: 'List payment intents, newest first',
        auth: read,
        query: listQuery,
        handler: (ctx) => {
          const base = knex('read.payment_intents').select('seq', 'object').where({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment });
          if (ctx.query.customer) base.andWhere({ customer: ctx.query.customer });
          return cursorPage<{ seq: string; object: PaymentIntentObject }, PaymentIntentObject>(base, ctx.query, '/api/v1/payment-intents', 'id', (row) => renderPaymentIntent(row.object));
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/payment-intents/:id',
        summary: 'Retrieve a payment intent',
        auth: read,
        params: idParams,
        response: paymentIntentSchema,
        handler: async (ctx) => {
          const found = await findPaymentIntent(knex, ctx.principal.merchantId, ctx.principal.environment, ctx.params.id);
          if (!found) throw new ApiError('IKW-RES-001', `No such payment intent: '${ctx.params.id}'`, 'id');
          return found;
        },
      }),
      route<{ description?: string | null; metadata?: Record<string, unknown> }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/payment-intents/:id',
        summary: 'Update the description or metadata of a payment intent (metadata keys are added or replaced)',
        auth: write,
        params: idParams,
        body: updateBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.update(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<ConfirmInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payment-intents/:id/confirm',
        summary: 'Confirm a payment intent with a payment method',
        auth: write,
        params: idParams,
        body: confirmBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.confirm(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<{ cancellation_reason?: CancellationReason }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payment-intents/:id/cancel',
        summary: 'Cancel a payment intent (from requires_payment_method or requires_action)',
        auth: write,
        params: idParams,
        body: cancelBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.cancel(ctx.owner, ctx.params.id, ctx.body.cancellation_reason ?? null, ctx.actor),
      }),
    ],
  };
}
