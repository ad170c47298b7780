import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { PaymentCapabilityEvent, PaymentCapabilityObject } from './events.js';
import { type PaymentCapabilityCommand, paymentCapabilityDecider, type PaymentCapabilityState } from './decider.js';

/** The public payment capability: what the API answers and what its events carry (`data.object`). */
export function toPaymentCapabilityObject(state: PaymentCapabilityState): PaymentCapabilityObject {
  const c = present(state.capability, 'payment capability');
  return {
    id: c.id,
    object: 'payment_capability',
    country: c.country,
    currency: c.currency,
    payment_method_type: c.paymentMethodType,
    operator: c.operator,
    is_enabled: state.isEnabled,
    status: state.status,
    suspension_reason: state.suspensionReason,
    created: unixSeconds(new Date(c.createdAt)),
    updated: unixSeconds(new Date(state.updatedAt ?? c.createdAt)),
    livemode: c.environment === 'live',
  };
}

/** The payment capability aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const paymentCapabilityAggregate: Decider<PaymentCapabilityCommand, PaymentCapabilityState, Fact<PaymentCapabilityEvent>> = { ...paymentCapabilityDecider, render: { object: toPaymentCapabilityObject } };
