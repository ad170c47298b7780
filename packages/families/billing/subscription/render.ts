import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import type { SubscriptionEvent, SubscriptionObject } from './events.js';
import { seconds, type SubscriptionCommand, subscriptionDecider, type SubscriptionState } from './decider.js';

/** The public subscription: what the API answers and what its events carry (`data.object`). */
export function toSubscriptionObject(state: SubscriptionState): SubscriptionObject {
  const s = present(state.subscription, 'subscription');
  return {
    id: s.id,
    object: 'subscription',
    customer: s.customer,
    status: state.status,
    items: s.items.map((i) => ({ id: i.id, price: i.price, quantity: i.quantity })),
    current_period_start: seconds(state.currentPeriodStart),
    current_period_end: seconds(state.currentPeriodEnd),
    currency: s.currency,
    cancel_at_period_end: state.cancelAtPeriodEnd,
    canceled_at: state.canceledAt ? seconds(state.canceledAt) : null,
    trial_end: s.trialEnd ? seconds(s.trialEnd) : null,
    latest_invoice: state.latestInvoice,
    billing_plan: s.billingPlanId,
    days_until_due: s.daysUntilDue,
    metadata: s.metadata,
    created: seconds(s.createdAt),
    livemode: s.environment === 'live',
  };
}

/** The subscription aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const subscriptionAggregate: Decider<SubscriptionCommand, SubscriptionState, Fact<SubscriptionEvent>> = { ...subscriptionDecider, render: { object: toSubscriptionObject, internal: ['subscription.usage_recorded'] } };
