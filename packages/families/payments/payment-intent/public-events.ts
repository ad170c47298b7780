import { testId, statusFor, CURRENCY, MSISDN, type PublicEvents } from '#packages/core/public-events.js';
import { maskedMethod } from './render.js';
import type { PaymentIntentObject } from './events.js';

/** Payment intents' public events (docs/payments.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const paymentIntentPublicEvents: PublicEvents = {
  types: [
    { type: 'payment_intent.created', emittedBy: 'POST /api/v1/payment-intents', data: 'the PaymentIntent' },
    { type: 'payment_intent.processing', emittedBy: "confirm, when the operator or acquirer accepted the payment; submit_otp, when the operator took the payer's one-time code", data: 'the PaymentIntent' },
    { type: 'payment_intent.requires_action', emittedBy: 'confirm, when the customer must approve (next_action set)', data: 'the PaymentIntent' },
    { type: 'payment_intent.succeeded', emittedBy: 'the operator confirming the payment', data: 'the PaymentIntent' },
    { type: 'payment_intent.payment_failed', emittedBy: 'the operator refusing the payment (last_payment_error set)', data: 'the PaymentIntent' },
    { type: 'payment_intent.canceled', emittedBy: 'POST /api/v1/payment-intents/{id}/cancel', data: 'the PaymentIntent' },
  ],
  example: paymentIntent,
};

function paymentIntent(type: string, created: number, livemode: boolean): PaymentIntentObject {
  const status = statusFor(type, { created: 'requires_payment_method', processing: 'processing', requires_action: 'requires_action', succeeded: 'succeeded', payment_failed: 'failed', canceled: 'canceled' });
  const paid = status === 'succeeded';
  return {
    id: testId('pi'),
    object: 'payment_intent',
    created,
    livemode,
    amount: 5000,
    currency: CURRENCY,
    status,
    description: 'Test payment',
    metadata: { order_id: '1234' },
    next_action: status === 'requires_action' ? { type: 'mobile_money_authorization', mobile_money_authorization: { instructions: 'Dial #144# to approve the payment', expires_at: new Date((created + 900) * 1000).toISOString() } } : null,
    customer: testId('cus'),
    transaction_country: 'SN',
    payer_country: 'SN',
    rail_country: 'SN',
    payment_method: maskedMethod(status === 'requires_payment_method' ? null : { type: 'mobile_money', country: 'SN', operator: 'orange', msisdn: MSISDN }),
    last_payment_error: status === 'failed' ? { code: 'insufficient_funds', message: 'The payer’s wallet does not hold enough' } : null,
    latest_operation: status === 'requires_payment_method' ? null : testId('op'),
    return_url: null,
    amount_received: paid ? 5000 : 0,
    fee: paid ? 100 : null,
    cancellation_reason: status === 'canceled' ? 'requested_by_customer' : null,
    canceled_at: status === 'canceled' ? created : null,
  };
}
