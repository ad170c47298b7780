import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import { publicMetadata } from './metadata.js';
import type { PaymentIntentEvent, PaymentIntentObject, PaymentMethodDetails } from './events.js';
import { type PaymentIntentCommand, paymentIntentDecider, type PaymentIntentState } from './decider.js';

/** A payment method as the public object shows it: the number's last four digits, a card's brand and last four. */
export function maskedMethod(pm: PaymentMethodDetails | null): PaymentIntentObject['payment_method'] {
  if (!pm) return null;
  if (pm.type === 'mobile_money') {
    return { type: 'mobile_money', mobile_money: { country: pm.country, operator: pm.operator, msisdn: `••••${pm.msisdn.slice(-4)}` } };
  }
  const token = pm.token ?? '';
  const brand = token.startsWith('tok_visa') || token === 'tok_3ds_required' ? 'visa' : 'unknown';
  return { type: 'card', card: { brand, last4: brand === 'visa' ? '4242' : '0000' } };
}
/** The public object of a state: what GET returns and what every public event carries. */
export function toObject(state: PaymentIntentState): PaymentIntentObject {
  const i = present(state.intent, 'payment intent');
  return {
    id: i.id,
    object: 'payment_intent',
    created: unixSeconds(new Date(i.createdAt)),
    livemode: i.environment === 'live',
    amount: i.amount,
    currency: i.currency,
    status: state.status,
    description: state.description,
    metadata: publicMetadata(state.metadata),
    next_action: state.status === 'requires_action' ? state.nextAction : null,
    customer: i.customer,
    transaction_country: i.transactionCountry,
    payer_country: i.payerCountry,
    rail_country: i.railCountry,
    payment_method: maskedMethod(state.paymentMethod),
    last_payment_error: state.lastError,
    latest_operation: state.confirmation?.operationId ?? null,
    return_url: state.confirmation?.returnUrl ?? null,
    amount_received: state.succeeded ? i.amount : 0,
    fee: state.fee,
    cancellation_reason: state.cancellationReason,
    canceled_at: state.canceledAt ? unixSeconds(new Date(state.canceledAt)) : null,
    ...(state.providerReference ? { provider_reference: state.providerReference } : {}),
  };
}

/** The payment intent aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const paymentIntentAggregate: Decider<PaymentIntentCommand, PaymentIntentState, Fact<PaymentIntentEvent>> = {
  ...paymentIntentDecider,
  render: { object: toObject, internal: ['payment_intent.confirmation_started', 'payment_intent.confirmation_aborted', 'payment_intent.escrow_assigned'] },
};
