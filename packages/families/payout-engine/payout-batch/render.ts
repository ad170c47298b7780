import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { PayoutBatchEvent, PayoutBatchObject } from './events.js';
import { type PayoutBatchCommand, payoutBatchDecider, type PayoutBatchState } from './decider.js';

/** The public payout batch: what the API answers and what its events carry (`data.object`). */
export function toPayoutBatchObject(state: PayoutBatchState): PayoutBatchObject {
  const b = present(state.batch, 'payout batch');
  return {
    id: b.id,
    object: 'payout_batch',
    status: state.status,
    currency: b.currency,
    total_amount: state.totalAmount,
    total_fee: state.totalFee,
    item_count: b.items.length,
    counts: { ...state.counts },
    attempt: state.attempt,
    idempotency_key: b.idempotencyKey,
    metadata: b.metadata,
    source_format: b.format,
    created: unixSeconds(new Date(b.createdAt)),
    executed_at: state.executedAt,
    finished_at: state.finishedAt,
    canceled_at: state.canceledAt,
    livemode: b.environment === 'live',
  };
}

/** The payout batch aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const payoutBatchAggregate: Decider<PayoutBatchCommand, PayoutBatchState, Fact<PayoutBatchEvent>> = { ...payoutBatchDecider, render: { object: toPayoutBatchObject, internal: ['payout_batch.items_sent'] } };
