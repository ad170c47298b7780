import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { PayoutEvent, PayoutObject } from './events.js';
import { FINAL_PAYOUT_STATUSES, type PayoutCommand, payoutDecider, type PayoutState } from './decider.js';

/** The public payout: what the API answers and what its events carry (`data.object`). */
export function toPayoutObject(state: PayoutState): PayoutObject {
  const p = present(state.payout, 'payout');
  return {
    id: p.id,
    object: 'payout',
    amount: p.amount,
    currency: p.currency,
    status: state.status,
    destination: p.destination,
    payout_method_id: p.payoutMethodId,
    arrival_date_estimate: p.expectedBy,
    expected_by: p.expectedBy,
    // Late describes a payout still on its way; once final it is not late (delay_reason and delayed_at stay as the record).
    delay_state: state.delayReason && !FINAL_PAYOUT_STATUSES.includes(state.status) ? 'delayed' : null,
    delay_reason: state.delayReason,
    delayed_at: state.delayedAt,
    metadata: p.metadata,
    failure_code: state.failure?.code ?? null,
    failure_message: state.failure?.message ?? null,
    fee: p.fee,
    created: unixSeconds(new Date(p.createdAt)),
    livemode: p.environment === 'live',
    ...(state.providerReference ? { provider_reference: state.providerReference } : {}),
    ...(p.review ? { review_status: state.reviewDeclined ? 'declined' : state.reviewReleased ? 'released' : 'held' } : {}),
  };
}

/** The payout aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const payoutAggregate: Decider<PayoutCommand, PayoutState, Fact<PayoutEvent>> = { ...payoutDecider, render: { object: toPayoutObject } };
