import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import type { ConfirmInput, CreateInput, PaymentIntents } from '../payment-intent/commands.js';
import type { PaymentIntentOtps } from '../payment-intent/otp.js';
import { CANCELLATION_REASONS, type CancellationReason, type PaymentIntentStatus } from '../payment-intent/events.js';
import { METADATA_LIMITS } from '../payment-intent/metadata.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { listObjectEvents } from '#packages/read-models/object-events.js';
import { findPaymentIntent, listPaymentIntents, PAYMENT_INTENT_CSV_COLUMNS, paymentIntentHistory, paymentIntentRecords, type PaymentIntentFilters } from '../read/payment-intents.js';
import { acceptsCsv, csvReply } from '#packages/http/csv.js';
import { amountFields, countrySchema, createdQuery, type CreatedQuery, createdRange, cursorListSchema, cursorQuery, exportTimeZone, found, historyEventSchema, idParams, retrieveRoute, timeZoneQuery } from '#packages/http/route-kit.js';
import { confirmationFields, paymentIntentSchema, paymentMethodSchema, CONFIRM_PAYMENT_EVENTS, CONFIRM_PAYMENT_REFUSALS } from './schemas.js';

const STATUSES: readonly PaymentIntentStatus[] = ['requires_payment_method', 'requires_action', 'processing', 'succeeded', 'failed', 'canceled'];
type ListQuery = CursorQuery & CreatedQuery & { customer?: string; status?: string; 'amount[gte]'?: number; 'amount[lte]'?: number; q?: string; time_zone?: string };

/** Metadata values that are not strings are accepted and not kept (interface, metadata rule 2). */
const metadata = {
  type: 'object',
  description: `Up to ${METADATA_LIMITS.keys} key–value pairs of your own (keys up to ${METADATA_LIMITS.keyLength} characters, string values up to ${METADATA_LIMITS.valueLength}); a value that is not a string is accepted and not kept`,
  maxProperties: METADATA_LIMITS.keys,
  propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyLength },
};

const createBody = {
  type: 'object',
  required: ['amount', 'currency', 'transaction_country'],
  additionalProperties: false,
  properties: {
    ...amountFields,
    transaction_country: { ...countrySchema, description: 'Where the payment is made (ISO 3166-1 alpha-2, any case): it sets the currency (`IKW-VAL-009` for another), the operators that can collect it, and the fees' },
    payer_country: { ...countrySchema, description: "The payer's country, when it is not the transaction's (a French payer paying a Senegalese merchant); kept for reporting" },
    rail_country: { ...countrySchema, description: "The country of the rail that carries the payment, when it is not the transaction's; kept for reporting" },
    description: { type: 'string', maxLength: 1000, description: 'Your description of the payment, up to 1,000 characters' },
    metadata,
    customer: { type: 'string', minLength: 1, maxLength: 255, description: 'An existing customer of this merchant and environment (`cus_…`) who pays; an unknown one is `IKW-VAL-001`' },
    customer_email: { type: 'string', format: 'email', maxLength: 254, description: "Without `customer`: the payer's e-mail, which finds the customer or creates one (Paystack card payments need it)" },
    customer_phone: {
      type: 'string',
      minLength: 4,
      maxLength: 32,
      description: "Without `customer` or `customer_email`: the payer's phone number (international, or national in the transaction country), which finds the customer or creates one",
    },
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
  properties: {
    description: { type: ['string', 'null'], maxLength: 1000, description: 'A new description; null removes it' },
    metadata: { ...metadata, description: `${metadata.description}. Keys given are added or replaced; the others stay` },
  },
};

const confirmBody = {
  type: 'object',
  required: ['payment_method'],
  additionalProperties: false,
  properties: {
    payment_method: paymentMethodSchema('snake_case'),
    return_url: {
      type: 'string',
      maxLength: 2048,
      pattern: '^https?://[^\\s]+$',
      description:
        "Where the payer's browser goes after a page of the payment (3-D Secure, the card page), with `status`, `payment_intent` and `operation_id` added; the payout settings' `default_return_url`, else Sika's status page, when absent",
    },
  },
};

const submitOtpBody = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: { code: { type: 'string', pattern: '^[0-9]{4,8}$', description: 'The one-time code the operator sent the payer, 4 to 8 digits, as the payer typed it' } },
};

const cancelBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cancellation_reason: {
      enum: [...CANCELLATION_REASONS],
      description: "Why you cancel it, shown as the intent's `cancellation_reason`",
      'x-enumDescriptions': {
        duplicate: 'Another intent pays for the same thing',
        fraudulent: 'The payment looks fraudulent',
        requested_by_customer: 'The customer asked to cancel',
        abandoned: 'The customer left without paying',
      },
    },
  },
};

/** /api/v1/payment-intents: create, retrieve, update, list, confirm, submit_otp, cancel, and each intent's history of events. */
export function paymentIntentsRoutes(knex: Knex, paymentIntents: PaymentIntents, otps: PaymentIntentOtps): RouteGroup {
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
        description: [
          'Creates a payment of `amount` in `currency`, made in `transaction_country`, in status `requires_payment_method`: nothing is charged until you confirm it (`POST /api/v1/payment-intents/{id}/confirm`). Create one intent per order or checkout and keep its id; its outcome comes by the `payment_intent.*` webhooks.',
          '',
          "The currency must be the country's, the amount within what its operators and acquirers take and within the merchant's activation of the country (`IKW-CFG-001`, `IKW-CFG-002`). Name the payer with `customer`, or let `customer_email` or `customer_phone` find or create the customer. A retry with the same `Idempotency-Key` answers the same intent.",
        ].join('\n'),
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-007', 'IKW-VAL-008', 'IKW-VAL-009', 'IKW-CFG-001', 'IKW-CFG-002'],
        emits: ['payment_intent.created'],
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
        description: [
          "The merchant's payment intents of the environment, newest first, cursor-paged (`limit`, `starting_after`, `ending_before`; docs/pagination.md). The filters combine: `customer`, `status` (one or several, comma-separated: `failed,canceled`), `created[…]` (Unix seconds), `amount[gte]` and `amount[lte]` (minor units), and `q`, which finds a payment by what a support request gives: its id, the customer's id or e-mail, the operation id, the operator's reference, the last digits of the number that paid, or words of the description.",
          '',
          'With `Accept: text/csv` it answers every match as one CSV file instead, streamed newest first, its times in `time_zone` (UTC by default).',
        ].join('\n'),
        auth: read,
        query: cursorQuery({
          customer: { type: 'string', maxLength: 255, description: 'Only the intents of this customer (`cus_…`)' },
          status: {
            type: 'string',
            pattern: `^(${STATUSES.join('|')})(,(${STATUSES.join('|')}))*$`,
            maxLength: 200,
            description: `Only intents in these statuses: one, or several separated by commas (${STATUSES.map((x) => `\`${x}\``).join(', ')})`,
          },
          'amount[gte]': { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: 'Only intents of at least this amount, in minor units' },
          'amount[lte]': { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: 'Only intents of at most this amount, in minor units' },
          q: {
            type: 'string',
            minLength: 1,
            maxLength: 200,
            description:
              "A search: an intent or customer id, an operation id or the operator's reference (exactly), the last 3 or more digits of the number that paid, the customer's e-mail (any case), or words of the description (case-insensitive)",
          },
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
      {
        ...retrieveRoute({ path: '/api/v1/payment-intents/:id', noun: 'payment intent', auth: read, response: paymentIntentSchema, summary: 'Retrieve a payment intent', find: (owner, id) => findPaymentIntent(knex, owner, id) }),
        description:
          "The payment intent as it stands now: its `status`, `next_action` while the payer must act, `last_payment_error` after a failure, `fee` and `provider_reference` once succeeded. Use it to check a payment whose webhook you missed, or when the payer comes back to your `return_url`; another merchant's intent, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<{ description?: string | null; metadata?: Record<string, unknown> }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/payment-intents/:id',
        fields: { paymentIntentId: 'id' },
        summary: 'Update the description or metadata of a payment intent (metadata keys are added or replaced)',
        description: 'Changes `description` and adds or replaces `metadata` keys, in any status, succeeded included: the amount, currency and payment never change. It emits no webhook (the history shows it as `payment_intent.updated`).',
        refusals: ['IKW-RES-003'],
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
        description: [
          'Starts the payment with `payment_method`: a mobile money wallet (the payer approves on their phone) or a card. The intent becomes `processing`, then `requires_action` when the payer must open a page (`next_action`), and `succeeded` or `failed` when the operator answers, told by webhook. Confirm an intent in `requires_payment_method`; one already with the provider or final is answered as it is, and the provider is not called again.',
          '',
          "Only one confirmation is with the provider at a time: a second meanwhile is `409 IKW-RES-003` (retryable). A provider that fails to answer gives `502 IKW-PRV-002` and the intent goes back to `requires_payment_method`. Mobile money's country must be the intent's `transaction_country` (`IKW-VAL-010`); the merchant's capabilities and, in live, its live activation apply (`IKW-CAP-*`; `IKW-PRV-005` before its activation application is approved, `IKW-ACT-006` while the account is suspended). Send an `Idempotency-Key`: a retry after a lost answer gets the same confirmation, never a second charge.",
        ].join('\n'),
        refusals: CONFIRM_PAYMENT_REFUSALS,
        emits: CONFIRM_PAYMENT_EVENTS,
        auth: write,
        params: idParams,
        body: confirmBody,
        response: paymentIntentSchema,
        handler: (ctx) => paymentIntents.confirm(ctx.owner, ctx.params.id, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<{ code: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payment-intents/:id/submit_otp',
        fields: { paymentIntentId: 'id' },
        summary: 'Give the one-time code the operator sent the payer (next action mobile_money_otp)',
        description: [
          'For an intent in `requires_action` whose `next_action` is `mobile_money_otp`: the operator sent the payer a one-time code by SMS, and the payment waits for it. The code goes to the operator, and the intent becomes `processing`; `succeeded` or `failed` follow as for any payment, told by webhook. The code is kept nowhere: not on the intent, its events or the logs.',
          '',
          "A code the operator refuses is `422 IKW-PRV-017`: the intent still waits, ask the payer again. An intent not waiting for a code is `409 IKW-RES-002`; another merchant's `404 IKW-RES-001`; an operator that did not answer `502 IKW-PRV-002` (retry). Where the operator asks for the code before the payment (Orange in Côte d'Ivoire), give it at confirm as `payment_method.mobile_money.otp` instead. Send an `Idempotency-Key`: a retry after a lost answer gets the same answer.",
        ].join('\n'),
        refusals: ['IKW-VAL-001', 'IKW-RES-001', 'IKW-RES-002', 'IKW-PRV-001', 'IKW-PRV-002', 'IKW-PRV-017'],
        emits: ['payment_intent.processing', 'payment_intent.payment_failed'],
        auth: write,
        params: idParams,
        body: submitOtpBody,
        response: paymentIntentSchema,
        handler: (ctx) => otps.submit(ctx.owner, ctx.params.id, ctx.body.code, ctx.actor),
      }),
      route<{ cancellation_reason?: CancellationReason }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/payment-intents/:id/cancel',
        fields: { paymentIntentId: 'id' },
        summary: 'Cancel a payment intent (from requires_payment_method or requires_action)',
        description:
          "Cancels an intent that has not been paid, in `requires_payment_method` or `requires_action`, with an optional `cancellation_reason`; it can no longer be confirmed. A `processing`, succeeded, failed or canceled intent is `409 IKW-RES-002`; one whose confirmation still waits for the provider's first answer is `409 IKW-RES-003` (that answer may already have taken the money: retry once it came). To give back money already collected, refund the payment instead.",
        refusals: ['IKW-RES-002', 'IKW-RES-003'],
        emits: ['payment_intent.canceled'],
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
        description:
          'Every change of the intent, newest first: each event as webhooks carry it (`payment_intent.created`, `payment_intent.processing`, `payment_intent.succeeded`, …) and `payment_intent.updated` (a `PATCH`, which has no webhook), each with the intent as that event left it and who caused it (`actor`). It answers "what happened to this payment, and when" without replaying webhooks; cursor-paged (docs/pagination.md).',
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
