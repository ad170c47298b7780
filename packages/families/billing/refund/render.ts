import { unixSeconds } from '#packages/core/clock.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import { paymentRefundsDecider, type PaymentRefundsState, type RefundCommand } from './decider.js';
import type { RefundEvent, RefundObject } from './events.js';

/** The public Refund: what the API answers and what refund events carry (`data.object`). */
export function toRefundObject(state: PaymentRefundsState, refundId: string): RefundObject {
  const p = state.payment;
  const r = state.refunds.get(refundId);
  if (!p || !r) throw new Error(`toRefundObject of a refund that does not exist: ${refundId}`);
  return {
    id: r.id,
    object: 'refund',
    amount: r.amount,
    currency: p.currency,
    payment_intent: p.id,
    status: r.status,
    reason: r.reason,
    failure_reason: r.failureReason,
    failure_code: r.status === 'failed' ? (r.failureCode ?? r.failureReason) : null,
    failure_message: r.failureMessage ?? null,
    created: unixSeconds(new Date(r.createdAt)),
    livemode: p.environment === 'live',
  };
}

/** The refund an event of the payment's refunds stream is about. */
function refundIdOf(event: Fact<RefundEvent>): string {
  return event.type === 'refund.created' ? event.data.refund.id : event.data.refundId;
}

/** The refunds of one payment as the command handler runs them: each event stored with the refund it is about, as it stands after it. */
export const paymentRefundsAggregate: Decider<RefundCommand, PaymentRefundsState, Fact<RefundEvent>> = {
  ...paymentRefundsDecider,
  render: { object: (state, event) => toRefundObject(state, refundIdOf(event)) },
};
