import type { Knex } from 'knex';
import type { Subscriptions } from '../subscription/commands.js';
import { toSubscriptionObject } from '../subscription/render.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../subscription/events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findSubscription, listSubscriptions, renderSubscription } from '../read/subscriptions.js';
import { describedCustomerFields, describedItemsSchema, SUBSCRIPTION_STATUS_WORDS, subscriptionSchema } from './schemas.js';
import { billingRead, billingWrite, customerRef, toItems, type CustomerFields } from './customer-fields.js';
import { idParams, metadataSchema, pageListRoute, retrieveRoute } from '#packages/http/route-kit.js';

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
    ...describedCustomerFields,
    items: describedItemsSchema,
    trial_period_days: { type: 'integer', minimum: 1, maximum: 730, description: 'Days of free trial before the first period: nothing is invoiced until it ends (status `trialing`)' },
    days_until_due: { type: 'integer', minimum: 0, maximum: 365, description: 'How many days each of its invoices gives to pay (default 7); an invoice unpaid by then makes it `past_due`' },
    cancel_at_period_end: { type: 'boolean', description: '`true`: it ends when its first period does, instead of renewing' },
    metadata: metadataSchema,
  },
};

/** /api/v1/merchant/subscriptions: list, retrieve, create from a customer and prices, cancel. */
export function merchantSubscriptionsRoutes(knex: Knex, subscriptions: Subscriptions): RouteGroup {
  return {
    name: 'merchant-subscriptions',
    description: 'Subscriptions of customers to recurring prices, invoiced every period.',
    routes: [
      {
        ...pageListRoute<{ status?: SubscriptionStatus; customer?: string }>({
          path: '/api/v1/merchant/subscriptions',
          item: subscriptionSchema,
          auth: billingRead,
          filters: {
            status: { enum: [...SUBSCRIPTION_STATUSES], description: 'Only the subscriptions in this status', 'x-enumDescriptions': SUBSCRIPTION_STATUS_WORDS },
            customer: { type: 'string', maxLength: 255, description: 'Only the subscriptions of this customer (`cus_…`)' },
          },
          summary: "List subscriptions, newest first; `customer` keeps one customer's",
          list: (owner, query) => listSubscriptions(knex, owner, query, { status: query.status, customer: query.customer }),
        }),
        description: 'The subscriptions of the environment, newest first, canceled ones included: `status: past_due` lists those with an invoice overdue, to chase; `customer` those of one customer.',
      },
      {
        ...retrieveRoute({ path: '/api/v1/merchant/subscriptions/:id', noun: 'subscription', auth: billingRead, response: subscriptionSchema, summary: 'Retrieve a subscription', find: (owner, id) => findSubscription(knex, owner, id) }),
        description: "One subscription as it stands: its status, current period and `latest_invoice`. Another merchant's subscription, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<CreateBody>({
        method: 'post',
        path: '/api/v1/merchant/subscriptions',
        fields: { customerId: 'customer' },
        summary: 'Subscribe a customer to recurring prices; the first period is invoiced at once unless it is a trial',
        description: [
          'Starts billing a customer every period for recurring prices of your products (`POST /api/v1/merchant/products`): name the customer by id, or by e-mail (`customer_email`, made if new). The prices must be recurring, of active products, all in one currency and on one interval; each period renews on its own.',
          '',
          'The first period is invoiced at once (`latest_invoice`, open, due in `days_until_due` days) unless `trial_period_days` starts it with a free trial. Each renewal invoices the next period in advance, with the metered usage of the period that ended. An invoice unpaid after its due date makes the subscription `past_due`. While a subscription uses a product, the product cannot be deleted.',
        ].join('\n'),
        refusals: ['IKW-BIL-006', 'IKW-BIL-007', 'IKW-BIL-008'],
        emits: ['subscription.created', 'invoice.created', 'invoice.finalized', 'customer.created'],
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
        description:
          'Stops a subscription. At once (the default): it is `canceled`, renews no more, and metered usage not yet invoiced goes on a last invoice; invoices already issued stay as they are. With `at_period_end: true`, it keeps running to the end of the period it was paid for, then ends (`cancel_at_period_end`); asking again changes nothing. A canceled subscription cannot be canceled again.',
        refusals: ['IKW-BIL-001'],
        emits: ['subscription.canceled', 'subscription.updated', 'invoice.created', 'invoice.finalized'],
        auth: billingWrite,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { at_period_end: { type: 'boolean', description: '`true`: end it when the current period ends instead of now; `false` or left out: now' } },
        },
        response: subscriptionSchema,
        handler: async (ctx) => renderSubscription(toSubscriptionObject(await subscriptions.cancel(ctx.owner, ctx.params.id, ctx.body.at_period_end ?? false, ctx.actor))),
      }),
    ],
  };
}
