import type { Knex } from 'knex';
import { ApiError } from '../../../packages/core/errors.js';
import type { CustomerRef } from '../../../packages/domain/customer/commands.js';
import type { Subscriptions } from '../../../packages/domain/subscription/commands.js';
import { toSubscriptionObject } from '../../../packages/domain/subscription/decider.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionObject, type SubscriptionStatus } from '../../../packages/domain/subscription/events.js';
import { pageListQuery, pageOf, type PageQuery } from '../../../packages/http/pagination.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findSubscription, renderSubscription } from '../../../projections/subscriptions.js';
import { billingRead, billingWrite, idParams, metadataSchema } from './merchant-customers.js';

/** How merchant billing bodies name a customer: `customer` (id), or `customer_email` (found or created) with an optional `customer_name`. */
export const customerFields = {
  customer: { type: 'string', minLength: 1, maxLength: 255 },
  customer_email: { type: 'string', format: 'email', maxLength: 254 },
  customer_name: { type: 'string', minLength: 1, maxLength: 250 },
};

export interface CustomerFields {
  customer?: string;
  customer_email?: string;
  customer_name?: string;
}

export function customerRef(body: CustomerFields): CustomerRef {
  if (body.customer !== undefined && body.customer_email !== undefined) {
    throw new ApiError('IKW-VAL-002', 'Give customer or customer_email, not both', 'customer_email');
  }
  if (body.customer === undefined && body.customer_email === undefined) throw new ApiError('IKW-VAL-001', 'Missing required parameter: customer', 'customer');
  return {
    ...(body.customer !== undefined ? { id: body.customer } : {}),
    ...(body.customer_email !== undefined ? { email: body.customer_email } : {}),
    ...(body.customer_name !== undefined ? { name: body.customer_name } : {}),
    param: 'customer',
  };
}

export const itemsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  items: {
    type: 'object',
    required: ['price'],
    additionalProperties: false,
    properties: { price: { type: 'string', minLength: 1, maxLength: 255 }, quantity: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
  },
};

export const toItems = (items: { price: string; quantity?: number }[]) => items.map((i, n) => ({ price: i.price, quantity: i.quantity ?? 1, param: `items.${n}.price` }));

interface CreateBody extends CustomerFields {
  items: { price: string; quantity?: number }[];
  trial_period_days?: number;
  days_until_due?: number;
  cancel_at_period_end?: boolean;
  metadata?: Record<string, string>;
}

const createBody = {
  type: 'object',
  required: ['items'],
  additionalProperties: false,
  properties: {
    ...customerFields,
    items: itemsSchema,
    trial_period_days: { type: 'integer', minimum: 1, maximum: 730 },
    days_until_due: { type: 'integer', minimum: 0, maximum: 365 },
    cancel_at_period_end: { type: 'boolean' },
    metadata: metadataSchema,
  },
};

export const subscriptionSchema = {
  type: 'object',
  required: ['id', 'object', 'customer', 'status', 'items', 'current_period_start', 'current_period_end', 'created'],
  properties: {
    id: { type: 'string' },
    object: { const: 'subscription' },
    customer: { type: 'string' },
    status: { enum: [...SUBSCRIPTION_STATUSES] },
    items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, price: { type: 'string' }, quantity: { type: 'integer' } } } },
    current_period_start: { type: 'integer' },
    current_period_end: { type: 'integer' },
    created: { type: 'integer' },
  },
};

/** /api/v1/merchant/subscriptions: list, retrieve, create from a customer and prices, cancel. */
export function merchantSubscriptionsFamily(knex: Knex, subscriptions: Subscriptions): Family {
  return {
    name: 'merchant-subscriptions',
    routes: [
      route<unknown, PageQuery & { status?: SubscriptionStatus }>({
        method: 'get',
        path: '/api/v1/merchant/subscriptions',
        summary: 'List subscriptions, newest first',
        auth: billingRead,
        query: { ...pageListQuery, properties: { ...pageListQuery.properties, status: { enum: [...SUBSCRIPTION_STATUSES] } } },
        handler: (ctx) => {
          const base = knex('read.subscriptions').select('object').where({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment });
          if (ctx.query.status) base.andWhere({ status: ctx.query.status });
          return pageOf<{ object: SubscriptionObject }, SubscriptionObject>(base, ctx.query, (row) => renderSubscription(row.object));
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/subscriptions/:id',
        summary: 'Retrieve a subscription',
        auth: billingRead,
        params: idParams,
        response: subscriptionSchema,
        handler: async (ctx) => {
          const found = await findSubscription(knex, ctx.principal.merchantId, ctx.principal.environment, ctx.params.id);
          if (!found) throw new ApiError('IKW-RES-001', `No such subscription: '${ctx.params.id}'`, 'id');
          return found;
        },
      }),
      route<CreateBody>({
        method: 'post',
        path: '/api/v1/merchant/subscriptions',
        summary: 'Subscribe a customer to recurring prices; the first period is invoiced at once unless it is a trial',
        auth: billingWrite,
        body: createBody,
        response: subscriptionSchema,
        handler: async (ctx) => {
          const b = ctx.body;
          const state = await subscriptions.create(
            ctx.principal,
            {
              customer: customerRef(b),
              items: toItems(b.items),
              ...(b.trial_period_days !== undefined ? { trialDays: b.trial_period_days } : {}),
              ...(b.days_until_due !== undefined ? { daysUntilDue: b.days_until_due } : {}),
              ...(b.cancel_at_period_end !== undefined ? { cancelAtPeriodEnd: b.cancel_at_period_end } : {}),
              ...(b.metadata ? { metadata: b.metadata } : {}),
            },
            ctx.actor,
          );
          return renderSubscription(toSubscriptionObject(state));
        },
      }),
      route<{ at_period_end?: boolean }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/merchant/subscriptions/:id/cancel',
        summary: 'Cancel a subscription now (usage not yet invoiced is billed on a last invoice), or at the end of the period',
        auth: billingWrite,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { at_period_end: { type: 'boolean' } } },
        response: subscriptionSchema,
        handler: async (ctx) => renderSubscription(toSubscriptionObject(await subscriptions.cancel(ctx.owner, ctx.params.id, ctx.body.at_period_end ?? false, ctx.actor))),
      }),
    ],
  };
}
