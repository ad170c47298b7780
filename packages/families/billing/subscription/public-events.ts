import { testId, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { SubscriptionObject } from './events.js';

/** Subscriptions' public events (docs/billing.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const subscriptionPublicEvents: PublicEvents = {
  types: [
    { type: 'subscription.created', emittedBy: 'POST /api/v1/merchant/subscriptions, POST /api/v1/billing/subscriptions', data: 'the Subscription' },
    { type: 'subscription.updated', emittedBy: 'status changes (active ⇄ past_due), cancel at period end', data: 'the Subscription' },
    { type: 'subscription.renewed', emittedBy: 'the renewal of a period (a new invoice is issued)', data: 'the Subscription' },
    { type: 'subscription.canceled', emittedBy: 'POST /api/v1/merchant/subscriptions/{id}/cancel, or the period end with cancel_at_period_end', data: 'the Subscription' },
  ],
  example: subscription,
};

function subscription(type: string, created: number, livemode: boolean): SubscriptionObject {
  const canceled = type === 'subscription.canceled';
  return {
    id: testId('sub'),
    object: 'subscription',
    customer: testId('cus'),
    status: canceled ? 'canceled' : 'active',
    items: [{ id: testId('si'), price: testId('price'), quantity: 1 }],
    current_period_start: created,
    current_period_end: created + 30 * 86_400,
    currency: CURRENCY,
    cancel_at_period_end: false,
    canceled_at: canceled ? created : null,
    trial_end: null,
    latest_invoice: testId('in'),
    billing_plan: null,
    days_until_due: 7,
    metadata: {},
    created,
    livemode,
  };
}
