import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import { ApiError } from '../../../../packages/core/errors.js';
import { planObject, planProduct, PLAN_INTERVALS, type NewPlan } from '../../../../packages/families/billing/plans.js';
import type { Billing } from '../../../../packages/families/billing/service.js';
import { toInvoiceObject } from '../../../../packages/families/billing/invoice/render.js';
import { INVOICE_STATUSES, type InvoiceObject, type InvoiceStatus } from '../../../../packages/families/billing/invoice/events.js';
import { toSubscriptionObject } from '../../../../packages/families/billing/subscription/render.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionObject, type SubscriptionStatus, type UsageRecord } from '../../../../packages/families/billing/subscription/events.js';
import type { HandlerContext } from '../../../../packages/http/context.js';
import { hasScope } from '../../../../packages/core/scopes.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findInvoice, listInvoicesByCursor, renderInvoice } from '../../../../projections/billing/invoices.js';
import { findPlan, listPlans, type PlanRow } from '../../../../projections/billing/products.js';
import { findSubscription, listSubscriptionsByCursor } from '../../../../projections/billing/subscriptions.js';
import { listUsageRecords } from '../../../../projections/billing/usage-records.js';
import {
  billingRead,
  billingWrite,
  type CamelPaymentMethod,
  confirmationFields,
  countrySchema,
  currencySchema,
  cursorListSchema,
  cursorQuery,
  found,
  idParams,
  paymentIntentSchema,
  paymentMethodSchema,
  resourceSchema,
  retrieveRoute,
  toPaymentMethod,
} from '../shared.js';

/**
 * /api/v1/billing: the same customers, products, subscriptions and invoices as the merchant
 * routes, in this family's camelCase (docs/billing.md), and billing plans
 * (packages/families/billing/plans.ts).
 */

const iso = (unix: number | null) => (unix === null ? null : new Date(unix * 1000).toISOString());
/** The same schema, that also takes null. */
const nullable = (schema: { type: string; pattern: string }) => ({ ...schema, type: [schema.type, 'null'] });
const nullableString = (maxLength: number) => ({ type: ['string', 'null'], maxLength });
const dateTime = { type: ['string', 'null'], format: 'date-time' };

const planBody = {
  type: 'object',
  required: ['name', 'currency', 'recurringAmount', 'interval'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 250 },
    currency: currencySchema,
    // A double in the interface; Sika amounts are whole minor units.
    recurringAmount: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
    interval: { enum: Object.keys(PLAN_INTERVALS) },
    usageBasedEnabled: { type: ['boolean', 'null'] },
    metadata: nullableString(500),
    usageUnitAmount: { type: ['integer', 'null'], minimum: 0, maximum: MAX_AMOUNT },
  },
};

function subscriptionObject(s: SubscriptionObject) {
  return {
    id: s.id,
    object: 'subscription',
    billingPlanId: s.billing_plan,
    customerId: s.customer,
    status: s.status,
    currency: s.currency,
    items: s.items.map((i) => ({ id: i.id, priceId: i.price, quantity: i.quantity })),
    currentPeriodStart: iso(s.current_period_start),
    currentPeriodEnd: iso(s.current_period_end),
    cancelAtPeriodEnd: s.cancel_at_period_end,
    canceledAt: iso(s.canceled_at),
    trialEnd: iso(s.trial_end),
    latestInvoiceId: s.latest_invoice,
    metadata: s.metadata,
    created: s.created,
    livemode: s.livemode,
  };
}

function invoiceObject(i: InvoiceObject) {
  return {
    id: i.id,
    object: 'invoice',
    customerId: i.customer,
    subscriptionId: i.subscription,
    status: i.status,
    currency: i.currency,
    amountDue: i.amount_due,
    amountPaid: i.amount_paid,
    amountRemaining: i.amount_remaining,
    periodStart: iso(i.period_start),
    periodEnd: iso(i.period_end),
    dueDate: i.due_date,
    hostedInvoiceUrl: i.hosted_invoice_url,
    paymentIntentId: i.payment_intent,
    description: i.description,
    lines: i.lines.map((l) => ({ description: l.description, priceId: l.price, quantity: l.quantity, unitAmount: l.unit_amount, amount: l.amount, meterKey: l.meter_key })),
    metadata: i.metadata,
    created: i.created,
    livemode: i.livemode,
  };
}

function usageRecordObject(r: UsageRecord) {
  return {
    id: r.id,
    object: 'usage_record',
    subscriptionId: r.subscriptionId,
    meterKey: r.meterKey,
    quantity: r.quantity,
    occurredAt: r.occurredAt,
    externalId: r.externalId,
    idempotencyKey: r.idempotencyKey,
    created: Math.floor(new Date(r.createdAt).getTime() / 1000),
  };
}

const invoiceResponse = resourceSchema('invoice', ['customerId', 'status', 'currency', 'amountDue', 'amountPaid', 'dueDate', 'hostedInvoiceUrl', 'created'], {
  customerId: { type: 'string' },
  subscriptionId: { type: ['string', 'null'] },
  status: { enum: [...INVOICE_STATUSES] },
  currency: { type: 'string' },
  amountDue: { type: 'integer' },
  amountPaid: { type: 'integer' },
  amountRemaining: { type: 'integer' },
  periodStart: { type: ['string', 'null'], format: 'date-time' },
  periodEnd: { type: ['string', 'null'], format: 'date-time' },
  dueDate: { type: ['string', 'null'], format: 'date' },
  hostedInvoiceUrl: { type: 'string' },
  paymentIntentId: { type: ['string', 'null'], description: 'The payment intent collecting it, once there is one' },
  description: { type: ['string', 'null'] },
  lines: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        description: { type: 'string' },
        priceId: { type: ['string', 'null'] },
        quantity: { type: 'integer' },
        unitAmount: { type: ['integer', 'null'] },
        amount: { type: 'integer' },
        meterKey: { type: ['string', 'null'] },
      },
    },
  },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const planResponse = resourceSchema('billing_plan', ['productId', 'name', 'currency', 'recurringAmount', 'interval', 'usageBasedEnabled', 'active', 'created'], {
  productId: { type: 'string' },
  name: { type: 'string' },
  currency: { type: 'string' },
  recurringAmount: { type: 'integer' },
  interval: { enum: ['day', 'week', 'month', 'year'] },
  intervalCount: { type: 'integer' },
  usageBasedEnabled: { type: 'boolean' },
  usageUnitAmount: { type: ['integer', 'null'] },
  metadata: { type: ['string', 'null'] },
  active: { type: 'boolean' },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const subscriptionResponse = resourceSchema('subscription', ['customerId', 'status', 'currency', 'items', 'currentPeriodStart', 'currentPeriodEnd', 'cancelAtPeriodEnd', 'created'], {
  billingPlanId: { type: ['string', 'null'] },
  customerId: { type: 'string' },
  status: { enum: [...SUBSCRIPTION_STATUSES] },
  currency: { type: 'string' },
  items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, priceId: { type: 'string' }, quantity: { type: 'integer' } } } },
  currentPeriodStart: { type: 'string', format: 'date-time' },
  currentPeriodEnd: { type: 'string', format: 'date-time' },
  cancelAtPeriodEnd: { type: 'boolean' },
  canceledAt: { type: ['string', 'null'], format: 'date-time' },
  trialEnd: { type: ['string', 'null'], format: 'date-time' },
  latestInvoiceId: { type: ['string', 'null'] },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const usageRecordResponse = resourceSchema('usage_record', ['subscriptionId', 'meterKey', 'quantity', 'occurredAt', 'created'], {
  subscriptionId: { type: 'string' },
  meterKey: { type: 'string' },
  quantity: { type: 'integer' },
  occurredAt: { type: 'string', format: 'date-time' },
  externalId: { type: ['string', 'null'] },
  idempotencyKey: { type: ['string', 'null'] },
  created: { type: 'integer' },
});

/** Pay and confirm create payment intents: the key needs payment_intents.write as well as billing.write. */
function assertPaymentIntentScope(ctx: HandlerContext): void {
  if (!hasScope(ctx.principal.scopes, 'payment_intents.write')) throw new ApiError('IKW-AUT-004', 'This API key lacks the scope payment_intents.write');
}

/** externalId and idempotencyKey of usage records: what a repeat is recognised by. */
const usageKeySchema = { type: ['string', 'null'], minLength: 1, maxLength: 255 };
const idempotencyKeySchema = { type: ['string', 'null'], minLength: 1, maxLength: 64 };

export function billingFamily(knex: Knex, billing: Billing): Family {
  return {
    name: 'billing',
    description: 'Recurring billing with plans, subscriptions, metered usage, and the invoices they make.',
    routes: [
      route<NewPlan>({
        method: 'post',
        path: '/api/v1/billing/plans',
        // The plan's prices are refused as the merchant products' are named.
        fields: { 'prices.*.recurring.intervalCount': 'prices.*.recurring.interval_count' },
        summary: 'Create a billing plan: a product with one recurring price (and a metered price when usageBasedEnabled); the plan id is the price id',
        auth: billingWrite,
        body: planBody,
        response: planResponse,
        handler: async (ctx) => {
          const product = await billing.products.create(ctx.owner, planProduct(ctx.body), ctx.actor);
          return planObject(product, product.prices[0]!);
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/billing/plans',
        summary: "List billing plans, newest first (cursor-paged): every licensed recurring price of the merchant's products that are not archived",
        auth: billingRead,
        query: cursorQuery(),
        response: cursorListSchema(planResponse),
        handler: async (ctx) => {
          const list = await listPlans(knex, ctx.owner, ctx.query, '/api/v1/billing/plans');
          return { ...list, data: list.data.map((p) => planObject(p.product, p.price)) };
        },
      }),
      retrieveRoute({ path: '/api/v1/billing/plans/:id', noun: 'billing plan', auth: billingRead, response: planResponse, render: (p: PlanRow) => planObject(p.product, p.price),
        summary: 'Retrieve a billing plan',
        find: (owner, id) => findPlan(knex, owner, id) }),
      route<unknown, CursorQuery & { status?: SubscriptionStatus; customerId?: string; billingPlanId?: string }>({
        method: 'get',
        path: '/api/v1/billing/subscriptions',
        summary: 'List subscriptions, newest first (cursor-paged), by status, customer or plan',
        auth: billingRead,
        query: cursorQuery({ status: { enum: [...SUBSCRIPTION_STATUSES] }, customerId: { type: 'string', maxLength: 255 }, billingPlanId: { type: 'string', maxLength: 255 } }),
        response: cursorListSchema(subscriptionResponse),
        handler: async (ctx) => {
          const { status, customerId, billingPlanId } = ctx.query;
          const list = await listSubscriptionsByCursor(knex, ctx.owner, ctx.query, '/api/v1/billing/subscriptions', { status, customer: customerId, billingPlan: billingPlanId });
          return { ...list, data: list.data.map(subscriptionObject) };
        },
      }),
      retrieveRoute({ path: '/api/v1/billing/subscriptions/:id', noun: 'subscription', auth: billingRead, response: subscriptionResponse, render: subscriptionObject,
        summary: 'Retrieve a subscription',
        find: (owner, id) => findSubscription(knex, owner, id) }),
      route<{ atPeriodEnd?: boolean | null }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/billing/subscriptions/:id/cancel',
        fields: { subscriptionId: 'id' },
        summary: 'Cancel a subscription now (its last period is invoiced for the usage so far) or, with atPeriodEnd, when its period ends; a canceled one is 409 IKW-BIL-001',
        auth: billingWrite,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { atPeriodEnd: { type: ['boolean', 'null'] } } },
        response: subscriptionResponse,
        handler: async (ctx) => subscriptionObject(toSubscriptionObject(await billing.subscriptions.cancel(ctx.owner, ctx.params.id, ctx.body.atPeriodEnd === true, ctx.actor))),
      }),
      route<{ billingPlanId: string; customerId: string; currentPeriodStart?: string | null; currentPeriodEnd?: string | null; cancelAtPeriodEnd?: boolean | null }>({
        method: 'post',
        path: '/api/v1/billing/subscriptions',
        summary: 'Subscribe a customer to a plan; the first period (currentPeriodStart to currentPeriodEnd, default now to one interval later) is invoiced at once',
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['billingPlanId', 'customerId'],
          additionalProperties: false,
          properties: {
            billingPlanId: { type: 'string', minLength: 1, maxLength: 255 },
            customerId: { type: 'string', minLength: 1, maxLength: 255 },
            currentPeriodStart: dateTime,
            currentPeriodEnd: dateTime,
            cancelAtPeriodEnd: { type: ['boolean', 'null'] },
          },
        },
        response: subscriptionResponse,
        handler: async (ctx) => {
          const b = ctx.body;
          const state = await billing.subscriptions.subscribeToPlan(
            ctx.owner,
            b.billingPlanId,
            {
              customer: { id: b.customerId },
              ...(b.cancelAtPeriodEnd ? { cancelAtPeriodEnd: true } : {}),
              ...(b.currentPeriodStart ? { periodStart: new Date(b.currentPeriodStart) } : {}),
              ...(b.currentPeriodEnd ? { periodEnd: new Date(b.currentPeriodEnd) } : {}),
            },
            ctx.actor,
          );
          return subscriptionObject(toSubscriptionObject(state));
        },
      }),
      route<unknown, CursorQuery & { status?: InvoiceStatus; customerId?: string; subscriptionId?: string }>({
        method: 'get',
        path: '/api/v1/billing/invoices',
        summary: 'List invoices, newest first (cursor-paged)',
        auth: billingRead,
        query: cursorQuery({ status: { enum: [...INVOICE_STATUSES] }, customerId: { type: 'string', maxLength: 255 }, subscriptionId: { type: 'string', maxLength: 255 } }),
        response: cursorListSchema(invoiceResponse),
        handler: async (ctx) => {
          const { status, customerId, subscriptionId } = ctx.query;
          const list = await listInvoicesByCursor(knex, ctx.owner, ctx.query, '/api/v1/billing/invoices', { status, customer: customerId, subscription: subscriptionId });
          return { ...list, data: list.data.map(invoiceObject) };
        },
      }),
      route<{ subscriptionId?: string | null; customerId?: string | null; currency?: string | null; amountDue: number; periodStart?: string | null; periodEnd?: string | null; dueDate?: string | null }>({
        method: 'post',
        path: '/api/v1/billing/invoices',
        summary: 'Create an invoice for an amount (open at once: it can be paid or confirmed right away)',
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['amountDue'],
          additionalProperties: false,
          properties: {
            subscriptionId: { type: ['string', 'null'], minLength: 1, maxLength: 255 },
            customerId: { type: ['string', 'null'], minLength: 1, maxLength: 255 },
            currency: nullable(currencySchema),
            // A double in the interface; Sika amounts are whole minor units.
            amountDue: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
            periodStart: dateTime,
            periodEnd: dateTime,
            dueDate: dateTime,
          },
        },
        response: invoiceResponse,
        handler: async (ctx) => {
          const b = ctx.body;
          if (!b.customerId && !b.subscriptionId) throw new ApiError('IKW-VAL-001', 'Missing required parameter: customerId', 'customerId');
          let currencyCode = b.currency ?? undefined;
          if (!currencyCode && b.subscriptionId) {
            currencyCode = (await billing.subscriptions.owned(ctx.owner, b.subscriptionId))?.subscription?.currency;
          }
          const state = await billing.invoices.create(
            ctx.owner,
            {
              customer: { ...(b.customerId ? { id: b.customerId } : {}) },
              ...(currencyCode ? { currency: currencyCode } : {}),
              amountDue: b.amountDue,
              ...(b.subscriptionId ? { subscriptionId: b.subscriptionId } : {}),
              ...(b.periodStart ? { periodStart: new Date(b.periodStart) } : {}),
              ...(b.periodEnd ? { periodEnd: new Date(b.periodEnd) } : {}),
              ...(b.dueDate ? { dueAt: new Date(b.dueDate) } : {}),
              finalize: true,
            },
            ctx.actor,
          );
          return invoiceObject(renderInvoice(toInvoiceObject(state)));
        },
      }),
      retrieveRoute({ path: '/api/v1/billing/invoices/:id', noun: 'invoice', auth: billingRead, response: invoiceResponse, render: invoiceObject,
        summary: 'Retrieve an invoice',
        find: (owner, id) => findInvoice(knex, owner, id) }),
      route<{ paymentMethod: CamelPaymentMethod; returnUrl?: string | null; idempotencyKey?: string | null; transactionCountry?: string | null }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/billing/invoices/:id/confirm',
        summary: 'Pay an invoice with a payment method: a payment intent for what remains, confirmed at once; its success pays the invoice',
        auth: billingWrite,
        fields: { invoiceId: 'id', ...confirmationFields },
        params: idParams,
        body: {
          type: 'object',
          required: ['paymentMethod'],
          additionalProperties: false,
          properties: {
            paymentMethod: paymentMethodSchema('camelCase'),
            returnUrl: { type: ['string', 'null'], maxLength: 2048, pattern: '^https?://[^\\s]+$' },
            idempotencyKey: idempotencyKeySchema,
            transactionCountry: nullable(countrySchema),
          },
        },
        response: { ...invoiceResponse, properties: { ...invoiceResponse.properties, paymentIntent: paymentIntentSchema } },
        handler: async (ctx) => {
          assertPaymentIntentScope(ctx);
          const b = ctx.body;
          const result = await billing.invoices.confirm(
            ctx.owner,
            ctx.params.id,
            {
              paymentMethod: toPaymentMethod(b.paymentMethod),
              ...(b.returnUrl ? { returnUrl: b.returnUrl } : {}),
              ...(b.idempotencyKey ? { idempotencyKey: b.idempotencyKey } : {}),
              ...(b.transactionCountry ? { transactionCountry: b.transactionCountry } : {}),
            },
            ctx.actor,
            ctx.requestRef,
          );
          return { ...invoiceObject(renderInvoice(toInvoiceObject(result.invoice))), paymentIntent: result.paymentIntent };
        },
      }),
      route<
        { transactionCountry?: string | null; payerCountry?: string | null; railCountry?: string | null; description?: string | null; metadata?: Record<string, string> | null; idempotencyKey?: string | null },
        unknown,
        { id: string }
      >({
        method: 'post',
        path: '/api/v1/billing/invoices/:id/pay',
        summary: 'Create a payment intent for what remains to pay on the invoice and return it (confirm it through /api/v1/payment-intents/{id}/confirm)',
        auth: billingWrite,
        fields: { invoiceId: 'id', ...confirmationFields },
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            transactionCountry: nullable(countrySchema),
            payerCountry: nullable(countrySchema),
            railCountry: nullable(countrySchema),
            description: nullableString(1000),
            metadata: { type: ['object', 'null'], maxProperties: 40, propertyNames: { minLength: 1, maxLength: 40 }, additionalProperties: { type: 'string', maxLength: 500 } },
            idempotencyKey: idempotencyKeySchema,
          },
        },
        response: paymentIntentSchema,
        handler: (ctx) => {
          assertPaymentIntentScope(ctx);
          const b = ctx.body;
          return billing.invoices.pay(
            ctx.owner,
            ctx.params.id,
            {
              ...(b.transactionCountry ? { transactionCountry: b.transactionCountry } : {}),
              ...(b.payerCountry ? { payerCountry: b.payerCountry } : {}),
              ...(b.railCountry ? { railCountry: b.railCountry } : {}),
              ...(b.description ? { description: b.description } : {}),
              ...(b.metadata ? { metadata: b.metadata } : {}),
              ...(b.idempotencyKey ? { idempotencyKey: b.idempotencyKey } : {}),
            },
            ctx.actor,
            ctx.requestRef,
          );
        },
      }),
      route<unknown, CursorQuery & { subscriptionId: string }>({
        method: 'get',
        path: '/api/v1/billing/usage/records',
        summary: 'List the usage records of a subscription, newest first (cursor-paged)',
        auth: billingRead,
        query: { ...cursorQuery({ subscriptionId: { type: 'string', minLength: 1, maxLength: 255 } }), required: ['subscriptionId'] },
        response: cursorListSchema(usageRecordResponse),
        handler: async (ctx) => {
          const { subscriptionId } = ctx.query;
          // Another merchant's subscription (or none) is "no such subscription", not an empty list.
          await found('subscription', subscriptionId, findSubscription(knex, ctx.owner, subscriptionId));
          const list = await listUsageRecords(knex, ctx.owner, subscriptionId, ctx.query, '/api/v1/billing/usage/records');
          return { ...list, data: list.data.map(usageRecordObject) };
        },
      }),
      route<{ subscriptionId: string; meterKey: string; quantity: number; occurredAt?: string | null; externalId?: string | null; idempotencyKey?: string | null }>({
        method: 'post',
        path: '/api/v1/billing/usage/records',
        summary: "Record metered usage on a subscription; it lands on the next invoice. Idempotent on idempotencyKey and on externalId (a repeat answers with the first record)",
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['subscriptionId', 'meterKey', 'quantity'],
          additionalProperties: false,
          properties: {
            subscriptionId: { type: 'string', minLength: 1, maxLength: 255 },
            meterKey: { type: 'string', minLength: 1, maxLength: 100 },
            quantity: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
            occurredAt: dateTime,
            externalId: usageKeySchema,
            idempotencyKey: usageKeySchema,
          },
        },
        response: { ...usageRecordResponse, properties: { ...usageRecordResponse.properties, replayed: { type: 'boolean', description: 'This answer is the record a repeat of idempotencyKey or externalId first created' } } },
        handler: async (ctx) => {
          const b = ctx.body;
          const { record, replayed } = await billing.subscriptions.recordUsage(
            ctx.owner,
            {
              subscriptionId: b.subscriptionId,
              meterKey: b.meterKey,
              quantity: b.quantity,
              ...(b.occurredAt ? { occurredAt: new Date(b.occurredAt) } : {}),
              ...(b.externalId ? { externalId: b.externalId } : {}),
              ...(b.idempotencyKey ? { idempotencyKey: b.idempotencyKey } : {}),
            },
            ctx.actor,
          );
          return { ...usageRecordObject(record), replayed };
        },
      }),
    ],
  };
}
