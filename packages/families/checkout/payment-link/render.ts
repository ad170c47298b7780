import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { PaymentLinkEvent, PaymentLinkObject } from './events.js';
import { type PaymentLinkCommand, paymentLinkDecider, type PaymentLinkState } from './decider.js';

/** The public payment link: what the API answers and what its events carry (`data.object`). */
export function toPaymentLinkObject(state: PaymentLinkState): PaymentLinkObject {
  const l = present(state.link, 'payment link');
  return {
    id: l.id,
    object: 'payment_link',
    url: l.url,
    slug: l.slug,
    amount: l.amount,
    currency: l.currency,
    country: l.country,
    feeMode: l.feeMode,
    description: l.description,
    paymentMethodTypes: l.paymentMethodTypes,
    expiresAt: l.expiresAt,
    isSingleUse: l.isSingleUse,
    successUrl: l.successUrl,
    cancelUrl: l.cancelUrl,
    active: state.deactivatedAt === null,
    deactivatedAt: state.deactivatedAt,
    livemode: l.environment === 'live',
    created: unixSeconds(new Date(l.createdAt)),
  };
}

/** The payment link aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const paymentLinkAggregate: Decider<PaymentLinkCommand, PaymentLinkState, Fact<PaymentLinkEvent>> = { ...paymentLinkDecider, render: { object: toPaymentLinkObject, internal: ['payment_link.claimed'] } };
