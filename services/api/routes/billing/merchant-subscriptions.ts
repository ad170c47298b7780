import type { Knex } from 'knex';
import type { Subscriptions } from '../../../../packages/families/billing/subscription/commands.js';
import { toSubscriptionObject } from '../../../../packages/families/billing/subscription/render.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../../../packages/families/billing/subscription/events.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findSubscription, listSubscriptions, renderSubscription } from '../../../../projections/billing/subscriptions.js';
import { subscriptionSchema } from '../../schemas/billing.js';
import {
  billingRead,
  billingWrite,
  customerFields,
  customerRef,
  idParams,
  itemsSchema,
  metadataSchema,
  pageListRoute,
  retrieveRoute,
  toItems,
  type CustomerFields,
} from '../shared.js';

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

/** /api/v1/merchant/subscriptions: list, retrieve, create from a customer and prices, cancel. */
export function merchantSubscriptionsFamily(knex: Knex, subscriptions: Subscriptions): Family {
  return {
    name: 'merchant-subscriptions',
    description: 'Subscriptions of customers to recurring prices, invoiced every period.',
    routes: [
      pageListRoute<{ status?: SubscriptionStatus; customer?: string }>({ path: '/api/v1/merchant/subscriptions', item: subscriptionSchema, auth: billingRead,
        filters: { status: { enum: [...SUBSCRIPTION_STATUSES] }, customer: { type: 'string', maxLength: 255 } },
        summary: 'List subscriptions, newest first; `customer` keeps one customer\'s',
        list: (owner, query) => listSubscriptions(knex, owner, query, { status: query.status, customer: query.customer }) }),
      retrieveRoute({ path: '/api/v1/merchant/subscriptions/:id', noun: 'subscription', auth: billingRead, response: subscriptionSchema,
        summary: 'Retrieve a subscription',
        find: (owner, id) => findSubscription(knex, owner, id) }),
      route<CreateBody>({
        method: 'post',
        path: '/api/v1/merchant/subscriptions',
        fields: { customerId: 'customer' },
        summary: 'Subscribe a customer to recurring prices; the first period is invoiced at once unless it is a trial',
        auth: billingWrite,
        body: createBody,
        response: subscriptionSchema,
        handler: async (ctx) => {
          const b = ctx.body;
          const state = await subscriptions.create(
            ctx.owner,
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
        fields: { subscriptionId: 'id' },
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
