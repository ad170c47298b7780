import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import { disputeDecider, type DisputeCommand, type DisputeState } from './decider.js';
import type { DisputeEvent, DisputeObject } from './events.js';

/** A dispute as merchants see it (the API, and `data.object` of its events and webhooks). */
export function toDisputeObject(state: DisputeState): DisputeObject {
  const d = present(state.dispute, 'dispute');
  const e = state.evidence;
  return {
    id: d.id,
    object: 'dispute',
    livemode: d.environment === 'live',
    status: state.status,
    reason: d.reason,
    amount: d.amount,
    currency: d.currency,
    fee: d.fee,
    shortfall: d.shortfall,
    payment_intent: d.paymentIntentId,
    evidence_due_by: state.evidenceDueBy,
    evidence: e
      ? {
          customer_email: e.customerEmail,
          customer_name: e.customerName,
          customer_phone: e.customerPhone,
          service_details: e.serviceDetails,
          delivery_address: e.deliveryAddress,
          delivery_date: e.deliveryDate,
          files: e.files,
          submitted_at: e.submittedAt,
        }
      : null,
    created: d.createdAt,
    closed_at: state.closedAt,
  };
}

/** Disputes as the command handler runs them: every event is stored with the dispute as it leaves it. */
export const disputeAggregate: Decider<DisputeCommand, DisputeState, Fact<DisputeEvent>> = {
  ...disputeDecider,
  render: { object: toDisputeObject },
};
