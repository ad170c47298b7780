import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import { expiresAtOf, sessionStatus, type CheckoutSessionState } from './decider.js';
import type { CheckoutPaymentStatus, CheckoutSessionObject } from './events.js';

/**
 * The public checkout session, given the latest attempt's payment status and the time: what the API
 * answers and the read model keeps. Its events carry no object (the status depends on the intent and
 * the clock), so the aggregate renders none into them.
 */
export function toCheckoutSessionObject(state: CheckoutSessionState, paymentStatus: CheckoutPaymentStatus, now: Date): CheckoutSessionObject {
  const s = present(state.session, 'checkout session');
  return {
    id: s.id,
    object: 'checkout.session',
    url: s.url,
    status: sessionStatus({ canceledAt: state.canceledAt, expiredAt: state.expiredAt, session: s }, paymentStatus, now),
    paymentStatus,
    amount: s.amount,
    amountTotal: state.amountTotal ?? (s.feeMode === 'merchant' ? s.amount : null),
    currency: s.currency,
    country: s.country,
    description: s.description,
    paymentMethodTypes: s.paymentMethodTypes,
    successUrl: s.successUrl,
    cancelUrl: s.cancelUrl,
    customerEmail: s.customerEmail,
    customerPhone: s.customerPhone,
    paymentLinkId: s.paymentLinkId,
    feeMode: s.feeMode,
    deferPaymentIntentCreation: s.deferPaymentIntentCreation,
    paymentIntentId: state.paymentIntentId,
    metadata: s.metadata,
    expiresAt: expiresAtOf({ ...state, session: s }),
    livemode: s.environment === 'live',
    created: unixSeconds(new Date(s.createdAt)),
  };
}
