import { testId, statusFor, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { PayoutBatchObject } from './events.js';

/** The payout engine's public events (docs/payout-engine.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const payoutBatchPublicEvents: PublicEvents = {
  types: [
    { type: 'payout_batch.created', emittedBy: 'POST /api/v1/payout-engine/batches', data: 'the PayoutBatch (status validated)' },
    { type: 'payout_batch.execution_started', emittedBy: 'POST /api/v1/payout-engine/batches/{batchId}/execute, …/retry', data: 'the PayoutBatch (status executing)' },
    { type: 'payout_batch.completed', emittedBy: 'the last item of an execution settling, every item paid', data: 'the PayoutBatch' },
    { type: 'payout_batch.partially_failed', emittedBy: 'the last item of an execution settling, some items paid and some not', data: 'the PayoutBatch' },
    { type: 'payout_batch.failed', emittedBy: 'the last item of an execution settling, no item paid', data: 'the PayoutBatch' },
    { type: 'payout_batch.canceled', emittedBy: 'POST /api/v1/payout-engine/batches/{batchId}/cancel', data: 'the PayoutBatch (status canceled)' },
  ],
  example: payoutBatch,
};

function payoutBatch(type: string, created: number, livemode: boolean): PayoutBatchObject {
  const status = statusFor(type, { created: 'validated', execution_started: 'executing', completed: 'completed', partially_failed: 'partially_failed', failed: 'failed', canceled: 'canceled' });
  const at = new Date(created * 1000).toISOString();
  const counts = { validated: 0, queued: 0, paid: 0, failed: 0, canceled: 0 };
  if (status === 'validated') counts.validated = 2;
  else if (status === 'executing') counts.queued = 2;
  else if (status === 'completed') counts.paid = 2;
  else if (status === 'partially_failed') Object.assign(counts, { paid: 1, failed: 1 });
  else if (status === 'failed') counts.failed = 2;
  else counts.canceled = 2;
  const finished = ['completed', 'partially_failed', 'failed'].includes(status);
  return {
    id: testId('pob'),
    object: 'payout_batch',
    status,
    currency: CURRENCY,
    total_amount: 40000,
    total_fee: 400,
    item_count: 2,
    counts,
    attempt: status === 'validated' ? 0 : 1,
    idempotency_key: null,
    metadata: null,
    source_format: 'json',
    created,
    executed_at: status === 'validated' || status === 'canceled' ? null : at,
    finished_at: finished ? at : null,
    canceled_at: status === 'canceled' ? at : null,
    livemode,
  };
}
