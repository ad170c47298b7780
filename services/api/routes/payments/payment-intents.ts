import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import type { ConfirmInput, CreateInput, PaymentIntents } from '../../../../packages/families/payments/payment-intent/commands.js';
import { CANCELLATION_REASONS, type CancellationReason, type PaymentIntentStatus } from '../../../../packages/families/payments/payment-intent/events.js';
import { METADATA_LIMITS } from '../../../../packages/families/payments/payment-intent/metadata.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { listObjectEvents } from '../../../../projections/object-events.js';
import { findPaymentIntent, listPaymentIntents, PAYMENT_INTENT_CSV_COLUMNS, paymentIntentHistory, paymentIntentRecords, type PaymentIntentFilters } from '../../../../projections/payments/payment-intents.js';
import { acceptsCsv, csvReply } from '../../../../packages/http/csv.js';
import {
  amountFields,
  confirmationFields,
  countrySchema,
  createdQuery,
  type CreatedQuery,
  createdRange,
  cursorListSchema,
  cursorQuery,
  exportTimeZone,
  found,
  historyEventSchema,
  idParams,
  paymentIntentSchema,
  paymentMethodSchema,
  retrieveRoute,
  timeZoneQuery,
} from '../shared.js';

const STATUSES: readonly PaymentIntentStatus[] = ['requires_payment_method', 'requires_action', 'processing', 'succeeded', 'failed', 'canceled'];
type ListQuery = CursorQuery & CreatedQuery & { customer?: string; status?: string; 'amount[gte]'?: number; 'amount[lte]'?: number; q?: string; time_zone?: string };

/** Metadata values that are not strings are accepted and not kept (interface, metadata rule 2). */
const metadata = { type: 'object', maxProperties: METADATA_LIMITS.keys, propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyLength } };

const createBody = {
  type: 'object',
  required: ['amount', 'currency', 'transaction_country'],
  additionalProperties: false,
  properties: {
    ...amountFields,
    transaction_country: countrySchema,
    payer_country: countrySchema,
    rail_country: countrySchema,
    description: { type: 'string', maxLength: 1000 },
    metadata,
    customer: { type: 'string', minLength: 1, maxLength: 255 },
    customer_email: { type: 'string', format: 'email', maxLength: 254 },
    customer_phone: { type: 'string', minLength: 4, maxLength: 32 },
  },
};

/** The create body as the API spells it. */
interface CreateBody {
  amount: number;
  currency: string;
  transaction_country: string;
  payer_country?: string;
  rail_country?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  customer?: string;
  customer_email?: string;
  customer_phone?: string;
}

/** The create command of a create body. */
function createInput({ transaction_country, payer_country, rail_country, customer_email, customer_phone, ...rest }: CreateBody): CreateInput {
  return {
    ...rest,
    transactionCountry: transaction_country,
    ...(payer_country !== undefined ? { payerCountry: payer_country } : {}),
    ...(rail_country !== undefined ? { railCountry: rail_country } : {}),
    ...(customer_email !== undefined ? { customerEmail: customer_email } : {}),
    ...(customer_phone !== undefined ? { customerPhone: customer_phone } : {}),
  };
}

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
    payment_method: paymentMethodSchema('snake_case'),
    return_url: { type: 'string', maxLength: 2048, pattern: '^https?://[^\\s]+$' },
  },
};

const cancelBody = {
  type: 'object',
  additionalProperties: false,
  properties: { cancellation_reason: { enum: [...CANCELLATION_REASONS] } },
};

/** /api/v1/payment-intents: create, retrieve, update, list, confirm, cancel, and each intent's history of events. */
export function paymentIntentsFamily(knex: Knex, paymentIntents: PaymentIntents): Family {
  const read = { scope: 'payment_intents.read', environmentHeader: 'optional' } as const;
  const write = { scope: 'payment_intents.write', environmentHeader: 'optional' } as const;
  return {
    name: 'payment-intents',
    description: 'Payment intents: one customer payment from creation to success or failure, by mobile money (the payer approves on their phone) or by card (with 3-D Secure when the bank asks).',
    routes: [
      route<CreateBody>({
        method: 'post',
        path: '/api/v1/payment-intents',
        summary: 'Create a payment intent',
        auth: write,
        fields: { transactionCountry: 'transaction_country', payerCountry: 'payer_country', railCountry: 'rail_country', customerPhone: 'customer_phone' },
        body: createBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.create(ctx.owner, createInput(ctx.body), ctx.actor, ctx.requestRef),
      }),
      route<unknown, ListQuery>({
        method: 'get',
        path: '/api/v1/payment-intents',
        summary:
          'List payment intents, newest first; filters: `customer`, `status` (one, or several separated by commas), `created[gt|gte|lt|lte]` (Unix seconds), `amount[gte|lte]` (minor units), and `q` (an intent or customer id, an operation or operator reference, the last digits of the number that paid, the customer’s e-mail, or words of the description); `Accept: text/csv` exports every match as CSV, newest first, streamed, its times in `time_zone` (UTC by default)',
        auth: read,
        query: cursorQuery({
          customer: { type: 'string', maxLength: 255 },
          status: { type: 'string', pattern: `^(${STATUSES.join('|')})(,(${STATUSES.join('|')}))*$`, maxLength: 200 },
          'amount[gte]': { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
          'amount[lte]': { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
          q: { type: 'string', minLength: 1, maxLength: 200 },
          ...createdQuery,
          ...timeZoneQuery,
        }),
        response: cursorListSchema(paymentIntentSchema),
        answers: { csv: PAYMENT_INTENT_CSV_COLUMNS },
        handler: async (ctx) => {
          const filters: PaymentIntentFilters = {
            customer: ctx.query.customer,
            status: ctx.query.status?.split(',') as PaymentIntentStatus[] | undefined,
            created: createdRange(ctx.query),
            amount: { gte: ctx.query['amount[gte]'], lte: ctx.query['amount[lte]'] },
            search: ctx.query.q,
          };
          if (acceptsCsv(ctx.header('accept'))) {
            return csvReply(PAYMENT_INTENT_CSV_COLUMNS, paymentIntentRecords(knex, ctx.owner, filters, exportTimeZone(ctx.query.time_zone)), 'payments.csv');
          }
          return listPaymentIntents(knex, ctx.owner, ctx.query, '/api/v1/payment-intents', filters);
        },
      }),
      retrieveRoute({ path: '/api/v1/payment-intents/:id', noun: 'payment intent', auth: read, response: paymentIntentSchema,
        summary: 'Retrieve a payment intent',
        find: (owner, id) => findPaymentIntent(knex, owner, id) }),
      route<{ description?: string | null; metadata?: Record<string, unknown> }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/payment-intents/:id',
        fields: { paymentIntentId: 'id' },
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
        fields: confirmationFields,
        summary: 'Confirm a payment intent with a payment method',
        auth: write,
        params: idParams,
        body: confirmBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.confirm(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<{ cancellation_reason?: CancellationReason }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payment-intents/:id/cancel',
        fields: { paymentIntentId: 'id' },
        summary: 'Cancel a payment intent (from requires_payment_method or requires_action)',
        auth: write,
        params: idParams,
        body: cancelBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.cancel(ctx.owner, ctx.params.id, ctx.body.cancellation_reason ?? null, ctx.actor),
      }),
      route<unknown, CursorQuery, { id: string }>({
        method: 'get',
        path: '/api/v1/payment-intents/:id/events',
        summary: "The intent's history: its events as webhooks carry them, each with the intent as that event left it, newest first",
        auth: read,
        params: idParams,
        query: cursorQuery(),
        response: cursorListSchema(historyEventSchema),
        handler: async (ctx) => {
          // Another merchant's intent, or none, is "no such payment intent", not an empty history.
          await found('payment intent', ctx.params.id, findPaymentIntent(knex, ctx.owner, ctx.params.id));
          return listObjectEvents(knex, ctx.owner, paymentIntentHistory, ctx.params.id, ctx.query, `/api/v1/payment-intents/${ctx.params.id}/events`);
        },
      }),
    ],
  };
}
