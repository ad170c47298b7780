import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import { planObject, planProduct, PLAN_INTERVALS, type NewPlan } from '../plans.js';
import type { Billing } from '../service.js';
import { toInvoiceObject } from '../invoice/render.js';
import { INVOICE_STATUSES, type InvoiceObject, type InvoiceStatus } from '../invoice/events.js';
import { toSubscriptionObject } from '../subscription/render.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionObject, type SubscriptionStatus, type UsageRecord } from '../subscription/events.js';
import type { HandlerContext } from '#packages/http/context.js';
import { hasScope } from '#packages/core/scopes.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findInvoice, listInvoicesByCursor, renderInvoice } from '../read/invoices.js';
import { findPlan, listPlans, type PlanRow } from '../read/products.js';
import { findSubscription, listSubscriptionsByCursor } from '../read/subscriptions.js';
import { listUsageRecords } from '../read/usage-records.js';
import { INVOICE_STATUS_WORDS, SUBSCRIPTION_STATUS_WORDS } from './schemas.js';
import { billingRead, billingWrite } from './customer-fields.js';
import { type CamelPaymentMethod, confirmationFields, paymentIntentSchema, paymentMethodSchema, toPaymentMethod, CONFIRM_PAYMENT_REFUSALS } from '#packages/families/payments/http/index.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, found, idParams, resourceSchema, retrieveRoute } from '#packages/http/route-kit.js';

/**
 * /api/v1/billing: the same customers, products, subscriptions and invoices as the merchant
 * routes, in this family's camelCase (docs/billing.md), and billing plans
 * (packages/families/billing/plans.ts).
 */

const iso = (unix: number | null) => (unix === null ? null : new Date(unix * 1000).toISOString());
/** The same schema, that also takes null. */
const nullable = (schema: { type: string; pattern: string }) => ({ ...schema, type: [schema.type, 'null'] });
const nullableString = (maxLength: number) => ({ type: ['string', 'null'], maxLength });
const dateTime = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

const INTERVAL_WORDS = { day: 'Every day', week: 'Every week', month: 'Every month', year: 'Every year' };
/** Every spelling a new plan's interval takes, with the interval it means. */
const PLAN_INTERVAL_WORDS = Object.fromEntries(Object.entries(PLAN_INTERVALS).map(([spelling, interval]) => [spelling, INTERVAL_WORDS[interval]]));

const planBody = {
  type: 'object',
  required: ['name', 'currency', 'recurringAmount', 'interval'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 250, description: 'What the plan is called on invoices and in the dashboard (`Pro monthly`)' },
    currency: currencySchema,
    // A double in the interface; Sika amounts are whole minor units.
    recurringAmount: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: 'What each period costs, in minor units of the currency (whole numbers only)' },
    interval: { enum: Object.keys(PLAN_INTERVALS), description: 'How often it bills: one period is one interval', 'x-enumDescriptions': PLAN_INTERVAL_WORDS },
    usageBasedEnabled: { type: ['boolean', 'null'], description: '`true`: the plan also bills metered usage, at `usageUnitAmount` a unit, in arrears each period' },
    metadata: { ...nullableString(500), description: 'Free text of your own about the plan, returned as given' },
    usageUnitAmount: { type: ['integer', 'null'], minimum: 0, maximum: MAX_AMOUNT, description: 'With `usageBasedEnabled`: the price of one unit of usage, in minor units (0 when left out)' },
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
  customerId: { type: 'string', description: 'The customer billed (`cus_…`)' },
  subscriptionId: { type: ['string', 'null'], description: 'The subscription it bills a period of, or null' },
  status: { enum: [...INVOICE_STATUSES], description: 'Where the invoice stands', 'x-enumDescriptions': INVOICE_STATUS_WORDS },
  currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case' },
  amountDue: { type: 'integer', description: 'The total of its lines, in minor units of the currency' },
  amountPaid: { type: 'integer', description: 'What payments and the wallet have paid so far, in minor units' },
  amountRemaining: { type: 'integer', description: '`amountDue` less `amountPaid`: what a payment of it is for' },
  periodStart: { type: ['string', 'null'], format: 'date-time', description: 'The start of the period it bills, or null' },
  periodEnd: { type: ['string', 'null'], format: 'date-time', description: 'The end of the period it bills, or null' },
  dueDate: { type: ['string', 'null'], format: 'date', description: 'The day it is due (UTC); a subscription invoice unpaid after it makes its subscription `past_due`' },
  hostedInvoiceUrl: { type: 'string', description: 'Its page for the customer, where they read, download and pay it' },
  paymentIntentId: { type: ['string', 'null'], description: 'The payment intent collecting it, once there is one' },
  description: { type: ['string', 'null'], description: 'A note on the invoice, or null' },
  lines: {
    type: 'array',
    description: 'What it bills, one line each',
    items: {
      type: 'object',
      properties: {
        description: {
          type: 'string',
          description: 'What the line is for: `<quantity> × <price>` for a subscription period, `Usage of <meter> from … to …` for metered usage, the product name or the text given on a merchant invoice, `Amount due` for a plain amount',
        },
        priceId: { type: ['string', 'null'], description: 'The price the line bills (the metered price for usage), or null for a plain amount or free text' },
        quantity: { type: 'integer', description: 'How many units the line bills' },
        unitAmount: { type: ['integer', 'null'], description: 'The price of one unit, in minor units of the currency' },
        amount: { type: 'integer', description: '`quantity` × `unitAmount`, in minor units of the currency' },
        meterKey: { type: ['string', 'null'], description: 'For metered usage, the meter it counts; null otherwise' },
      },
    },
  },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const planResponse = resourceSchema('billing_plan', ['productId', 'name', 'currency', 'recurringAmount', 'interval', 'usageBasedEnabled', 'active', 'created'], {
  productId: { type: 'string', description: 'The product that holds the plan (`prod_…`), as `/api/v1/merchant/products` shows it' },
  name: { type: 'string', description: "The plan's name" },
  currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case' },
  recurringAmount: { type: 'integer', description: 'What each period costs, in minor units of the currency' },
  interval: { enum: ['day', 'week', 'month', 'year'], description: 'The unit of its billing period', 'x-enumDescriptions': INTERVAL_WORDS },
  intervalCount: { type: 'integer', description: 'How many intervals a period lasts' },
  usageBasedEnabled: { type: 'boolean', description: 'Whether it also bills metered usage' },
  usageUnitAmount: { type: ['integer', 'null'], description: 'The price of one unit of usage, in minor units; null for a plan without usage' },
  metadata: { type: ['string', 'null'], description: 'Your free text about the plan, as given, or null' },
  active: { type: 'boolean', description: 'Whether its product is on sale: new subscriptions need an active plan' },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const subscriptionResponse = resourceSchema('subscription', ['customerId', 'status', 'currency', 'items', 'currentPeriodStart', 'currentPeriodEnd', 'cancelAtPeriodEnd', 'created'], {
  billingPlanId: { type: ['string', 'null'], description: 'The plan subscribed to, or null for a subscription made from prices (`/api/v1/merchant/subscriptions`)' },
  customerId: { type: 'string', description: 'The customer subscribed (`cus_…`)' },
  status: { enum: [...SUBSCRIPTION_STATUSES], description: 'Where the subscription stands', 'x-enumDescriptions': SUBSCRIPTION_STATUS_WORDS },
  currency: { type: 'string', description: 'The currency of its prices, a three-letter ISO 4217 code in lower case' },
  items: {
    type: 'array',
    description: "The prices it bills each period: the plan's price, then its metered price for a usage-based plan",
    items: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The item (`si_…`)' },
        priceId: { type: 'string', description: 'The recurring price (`price_…`)' },
        quantity: { type: 'integer', description: 'How many units each period bills' },
      },
    },
  },
  currentPeriodStart: { type: 'string', format: 'date-time', description: 'The start of the current period' },
  currentPeriodEnd: { type: 'string', format: 'date-time', description: 'The end of the current period: the next renewal' },
  cancelAtPeriodEnd: { type: 'boolean', description: '`true`: it ends when the current period does instead of renewing' },
  canceledAt: { type: ['string', 'null'], format: 'date-time', description: 'When it was canceled; null unless canceled' },
  trialEnd: { type: ['string', 'null'], format: 'date-time', description: 'When its trial ends, or null without one' },
  latestInvoiceId: { type: ['string', 'null'], description: 'The last invoice it issued, or null' },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const usageRecordResponse = resourceSchema('usage_record', ['subscriptionId', 'meterKey', 'quantity', 'occurredAt', 'created'], {
  subscriptionId: { type: 'string', description: 'The subscription the usage is billed on' },
  meterKey: { type: 'string', description: 'What was counted (`api_calls`): each meter is one line of the invoice' },
  quantity: { type: 'integer', description: 'How many units were used' },
  occurredAt: { type: 'string', format: 'date-time', description: 'When the usage happened, as given (the time it was recorded otherwise)' },
  externalId: { type: ['string', 'null'], description: 'Your id of the usage, as given: a repeat of it records nothing more' },
  idempotencyKey: { type: ['string', 'null'], description: 'The key given to record it once, or null' },
  created: { type: 'integer' },
});

/** Pay and confirm create payment intents: the key needs payment_intents.write as well as billing.write. */
function assertPaymentIntentScope(ctx: HandlerContext): void {
  if (!hasScope(ctx.principal.scopes, 'payment_intents.write')) throw new ApiError('IKW-AUT-004', 'This API key lacks the scope payment_intents.write');
}

/** externalId and idempotencyKey of usage records: what a repeat is recognised by. */
const usageKeySchema = (description: string) => ({ type: ['string', 'null'], minLength: 1, maxLength: 255, description });
const idempotencyKeySchema = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 64,
  description: 'Names the payment of this invoice: the same key answers the payment intent it first made, never a second one',
};

export function billingRoutes(knex: Knex, billing: Billing): RouteGroup {
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
        description:
          "Makes what customers subscribe to: a price of `recurringAmount` every `interval`, plus, with `usageBasedEnabled`, a metered price of `usageUnitAmount` a unit of usage. It is a product of the catalogue (`productId`, seen by `/api/v1/merchant/products`) and the plan's id is its recurring price's id (`price_…`). Subscribe customers with `POST /api/v1/billing/subscriptions`.",
        refusals: ['IKW-VAL-003'],
        emits: ['product.created'],
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
        description:
          'The plans customers can be subscribed to, newest first: every licensed recurring price of your products that are not archived, those made by `POST /api/v1/merchant/products` too. `active: false` plans belong to deactivated products and take no new subscriptions.',
        auth: billingRead,
        query: cursorQuery(),
        response: cursorListSchema(planResponse),
        handler: async (ctx) => {
          const list = await listPlans(knex, ctx.owner, ctx.query, '/api/v1/billing/plans');
          return { ...list, data: list.data.map((p) => planObject(p.product, p.price)) };
        },
      }),
      {
        ...retrieveRoute({
          path: '/api/v1/billing/plans/:id',
          noun: 'billing plan',
          auth: billingRead,
          response: planResponse,
          render: (p: PlanRow) => planObject(p.product, p.price),
          summary: 'Retrieve a billing plan',
          find: (owner, id) => findPlan(knex, owner, id),
        }),
        description: "One plan, by its id (its recurring price's `price_…`). Another merchant's plan, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<unknown, CursorQuery & { status?: SubscriptionStatus; customerId?: string; billingPlanId?: string }>({
        method: 'get',
        path: '/api/v1/billing/subscriptions',
        summary: 'List subscriptions, newest first (cursor-paged), by status, customer or plan',
        description:
          'The subscriptions of the environment, newest first, canceled ones included, as `/api/v1/merchant/subscriptions` lists them in camelCase and cursor-paged: `status: past_due` keeps those with an overdue invoice, `customerId` and `billingPlanId` those of one customer or plan.',
        auth: billingRead,
        query: cursorQuery({
          status: { enum: [...SUBSCRIPTION_STATUSES], description: 'Only the subscriptions in this status', 'x-enumDescriptions': SUBSCRIPTION_STATUS_WORDS },
          customerId: { type: 'string', maxLength: 255, description: 'Only the subscriptions of this customer (`cus_…`)' },
          billingPlanId: { type: 'string', maxLength: 255, description: 'Only the subscriptions to this plan (`price_…`)' },
        }),
        response: cursorListSchema(subscriptionResponse),
        handler: async (ctx) => {
          const { status, customerId, billingPlanId } = ctx.query;
          const list = await listSubscriptionsByCursor(knex, ctx.owner, ctx.query, '/api/v1/billing/subscriptions', { status, customer: customerId, billingPlan: billingPlanId });
          return { ...list, data: list.data.map(subscriptionObject) };
        },
      }),
      {
        ...retrieveRoute({
          path: '/api/v1/billing/subscriptions/:id',
          noun: 'subscription',
          auth: billingRead,
          response: subscriptionResponse,
          render: subscriptionObject,
          summary: 'Retrieve a subscription',
          find: (owner, id) => findSubscription(knex, owner, id),
        }),
        description: "One subscription as it stands: status, current period, `latestInvoiceId`. Another merchant's subscription, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<{ atPeriodEnd?: boolean | null }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/billing/subscriptions/:id/cancel',
        fields: { subscriptionId: 'id' },
        summary: 'Cancel a subscription now (its last period is invoiced for the usage so far) or, with atPeriodEnd, when its period ends; a canceled one is 409 IKW-BIL-001',
        description:
          'Stops a subscription. At once (the default): it is `canceled`, renews no more, and metered usage not yet invoiced goes on a last invoice. With `atPeriodEnd: true` it runs to the end of the period already invoiced, then ends (`cancelAtPeriodEnd`); asking again changes nothing. A canceled subscription cannot be canceled again.',
        refusals: ['IKW-BIL-001'],
        emits: ['subscription.canceled', 'subscription.updated', 'invoice.created', 'invoice.finalized'],
        auth: billingWrite,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { atPeriodEnd: { type: ['boolean', 'null'], description: '`true`: end it when the current period ends instead of now; `false`, null or left out: now' } },
        },
        response: subscriptionResponse,
        handler: async (ctx) => subscriptionObject(toSubscriptionObject(await billing.subscriptions.cancel(ctx.owner, ctx.params.id, ctx.body.atPeriodEnd === true, ctx.actor))),
      }),
      route<{ billingPlanId: string; customerId: string; currentPeriodStart?: string | null; currentPeriodEnd?: string | null; cancelAtPeriodEnd?: boolean | null }>({
        method: 'post',
        path: '/api/v1/billing/subscriptions',
        summary: 'Subscribe a customer to a plan; the first period (currentPeriodStart to currentPeriodEnd, default now to one interval later) is invoiced at once',
        description:
          "Starts billing a customer every period of a plan (`POST /api/v1/billing/plans`); the plan's metered price comes with it, so usage recorded on the subscription is billed too. The first period is invoiced at once (`latestInvoiceId`, open, due in 7 days); each renewal invoices the next period in advance with the usage of the period that ended. An invoice unpaid after its due date makes it `past_due`. The plan must be active.",
        refusals: ['IKW-BIL-006', 'IKW-BIL-007', 'IKW-BIL-008'],
        emits: ['subscription.created', 'invoice.created', 'invoice.finalized'],
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['billingPlanId', 'customerId'],
          additionalProperties: false,
          properties: {
            billingPlanId: { type: 'string', minLength: 1, maxLength: 255, description: 'The plan (`price_…`)' },
            customerId: { type: 'string', minLength: 1, maxLength: 255, description: 'The customer (`cus_…`), one of this environment' },
            currentPeriodStart: dateTime('When the first period starts; now when left out or null'),
            currentPeriodEnd: dateTime('When the first period ends (after it starts), and the anchor of the renewals; one interval after the start when left out or null'),
            cancelAtPeriodEnd: { type: ['boolean', 'null'], description: '`true`: it ends when its first period does, instead of renewing' },
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
        description:
          'The invoices of the environment, newest first, as `/api/v1/merchant/invoices` lists them in camelCase and cursor-paged: `status: open` keeps what customers still owe, `customerId` and `subscriptionId` those of one customer or subscription.',
        auth: billingRead,
        query: cursorQuery({
          status: { enum: [...INVOICE_STATUSES], description: 'Only the invoices in this status', 'x-enumDescriptions': INVOICE_STATUS_WORDS },
          customerId: { type: 'string', maxLength: 255, description: 'Only the invoices of this customer (`cus_…`)' },
          subscriptionId: { type: 'string', maxLength: 255, description: 'Only the invoices of this subscription (`sub_…`)' },
        }),
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
        description:
          'Bills a customer a plain `amountDue`, as one line, for an extra charge or a one-off: unlike `/api/v1/merchant/invoices` it is finalized (`open`) at once, ready for `…/pay` or `…/confirm`; nothing is e-mailed. Name the customer, or a subscription whose customer and currency it takes. Due in 30 days unless `dueDate` says otherwise.',
        refusals: ['IKW-VAL-003', 'IKW-BIL-006', 'IKW-ACT-005', 'IKW-ACT-006'],
        emits: ['invoice.created', 'invoice.finalized'],
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['amountDue'],
          additionalProperties: false,
          properties: {
            subscriptionId: { type: ['string', 'null'], minLength: 1, maxLength: 255, description: 'A subscription it belongs to (`sub_…`): the invoice bills its customer, in its currency unless `currency` is given' },
            customerId: { type: ['string', 'null'], minLength: 1, maxLength: 255, description: "The customer billed (`cus_…`); needed unless `subscriptionId` is given, and then it must be the subscription's" },
            currency: { ...nullable(currencySchema), description: "The currency (`XOF`); needed unless the subscription's is taken" },
            // A double in the interface; Sika amounts are whole minor units.
            amountDue: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: 'What it bills, in minor units of the currency (whole numbers only)' },
            periodStart: dateTime('The start of the period it bills, if any'),
            periodEnd: dateTime('The end of the period it bills, after its start'),
            dueDate: dateTime('When it is due; 30 days from now when left out or null'),
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
          const state = await billing.invoiceIssuing.create(
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
      {
        ...retrieveRoute({ path: '/api/v1/billing/invoices/:id', noun: 'invoice', auth: billingRead, response: invoiceResponse, render: invoiceObject, summary: 'Retrieve an invoice', find: (owner, id) => findInvoice(knex, owner, id) }),
        description: "One invoice as it stands: what was paid, what remains, `paymentIntentId`. Another merchant's invoice, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<{ paymentMethod: CamelPaymentMethod; returnUrl?: string | null; idempotencyKey?: string | null; transactionCountry?: string | null }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/billing/invoices/:id/confirm',
        summary: 'Pay an invoice with a payment method: a payment intent for what remains, confirmed at once; its success pays the invoice',
        description: [
          "Charges what remains on an open (or uncollectible) invoice in one call: it makes the payment intent (`…/pay`) and confirms it with `paymentMethod`, as `POST /api/v1/payment-intents/{id}/confirm` does, and answers the invoice with `paymentIntent`. The intent's success pays the invoice (`invoice.paid`); follow it by webhook. The key needs `payment_intents.write` too.",
          '',
          'An invoice has one payment in flight at a time: another is refused while it is with the provider. The same `idempotencyKey`, or a retry with the same `Idempotency-Key`, answers the payment first made instead of charging again.',
        ].join('\n'),
        refusals: ['IKW-BIL-009', 'IKW-BIL-012', 'IKW-VAL-004', ...CONFIRM_PAYMENT_REFUSALS],
        emits: ['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_action', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'invoice.paid'],
        auth: billingWrite,
        fields: { invoiceId: 'id', ...confirmationFields },
        params: idParams,
        body: {
          type: 'object',
          required: ['paymentMethod'],
          additionalProperties: false,
          properties: {
            paymentMethod: paymentMethodSchema('camelCase'),
            returnUrl: { type: ['string', 'null'], maxLength: 2048, pattern: '^https?://[^\\s]+$', description: 'Where the payer comes back after a page the payment opens (3-D Secure, a card page)' },
            idempotencyKey: idempotencyKeySchema,
            transactionCountry: { ...nullable(countrySchema), description: "A card payment's country; mobile money takes its wallet's country. The first country of the invoice's currency when left out" },
          },
        },
        response: { ...invoiceResponse, properties: { ...invoiceResponse.properties, paymentIntent: { ...paymentIntentSchema, description: 'The payment intent confirmed, as it stands' } } },
        handler: async (ctx) => {
          assertPaymentIntentScope(ctx);
          const b = ctx.body;
          const result = await billing.invoicePayments.confirm(
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
      route<{ transactionCountry?: string | null; payerCountry?: string | null; railCountry?: string | null; description?: string | null; metadata?: Record<string, string> | null; idempotencyKey?: string | null }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/billing/invoices/:id/pay',
        summary: 'Create a payment intent for what remains to pay on the invoice and return it (confirm it through /api/v1/payment-intents/{id}/confirm)',
        description:
          "Makes the payment intent that pays what remains on an open (or uncollectible) invoice, for the invoice's customer, and answers it in `requires_payment_method`: confirm it with `POST /api/v1/payment-intents/{id}/confirm`, from your server or your payment page. Its success pays the invoice. The same `idempotencyKey`, or a retry with the same `Idempotency-Key`, answers the intent first made. The key needs `payment_intents.write` too.",
        refusals: ['IKW-BIL-009', 'IKW-VAL-004', 'IKW-VAL-003', 'IKW-VAL-009', 'IKW-CFG-001', 'IKW-CFG-002'],
        emits: ['payment_intent.created'],
        auth: billingWrite,
        fields: { invoiceId: 'id', ...confirmationFields },
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            transactionCountry: { ...nullable(countrySchema), description: "The country the payment is made in (`transaction_country` of the intent); the first country of the invoice's currency when left out" },
            payerCountry: { ...nullable(countrySchema), description: "The payer's country, when not the transaction's" },
            railCountry: { ...nullable(countrySchema), description: "The country of the rail that collects it, when not the transaction's" },
            description: { ...nullableString(1000), description: "The payment's description; `Invoice in_…` when left out" },
            metadata: {
              type: ['object', 'null'],
              maxProperties: 40,
              propertyNames: { minLength: 1, maxLength: 40 },
              additionalProperties: { type: 'string', maxLength: 500 },
              description: "Key–value pairs of your own for the payment intent; its `invoice_id` key is set to the invoice's id",
            },
            idempotencyKey: idempotencyKeySchema,
          },
        },
        response: paymentIntentSchema,
        handler: (ctx) => {
          assertPaymentIntentScope(ctx);
          const b = ctx.body;
          return billing.invoicePayments.pay(
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
        description: "The usage recorded on one subscription, newest first, invoiced or not: to check what a period's invoice will bill. Another merchant's subscription, or none, is `404 IKW-RES-001`, not an empty list.",
        auth: billingRead,
        query: { ...cursorQuery({ subscriptionId: { type: 'string', minLength: 1, maxLength: 255, description: 'The subscription (`sub_…`)' } }), required: ['subscriptionId'] },
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
        summary: 'Record metered usage on a subscription; it lands on the next invoice. Idempotent on idempotencyKey and on externalId (a repeat answers with the first record)',
        description:
          "Counts usage of a metered plan (`usageBasedEnabled`) as it happens: the renewal that closes the period bills each meter's total × the plan's `usageUnitAmount` on the next invoice, and canceling now bills it on a last one. Give each record an `externalId` (your event's id) or `idempotencyKey`: a repeat answers the first record with `replayed: true` and counts nothing more; the same key with another quantity or meter is refused. A canceled subscription, or one without a metered price, takes no usage.",
        refusals: ['IKW-BIL-011', 'IKW-IDM-002'],
        auth: billingWrite,
        body: {
          type: 'object',
          required: ['subscriptionId', 'meterKey', 'quantity'],
          additionalProperties: false,
          properties: {
            subscriptionId: { type: 'string', minLength: 1, maxLength: 255, description: 'The subscription used (`sub_…`)' },
            meterKey: { type: 'string', minLength: 1, maxLength: 100, description: 'What is counted (`api_calls`): each meter is billed on its own line' },
            quantity: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'How many units were used' },
            occurredAt: dateTime('When the usage happened; now when left out or null'),
            externalId: usageKeySchema('Your id of this usage (an event id): a repeat of it counts nothing more'),
            idempotencyKey: usageKeySchema('A key to record it once: a repeat of it counts nothing more'),
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
