import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/**
 * A sandbox card payment that succeeded, looked at for the disputed test card (docs/disputes.md,
 * "In the sandbox"): its own job, so the dispute opens after the payment's commit, once.
 */
export const sandboxDispute = defineProcess<{ paymentIntentId: string }>({
  job: { name: 'dispute.sandbox_open', key: (p) => `dispute-sandbox:${p.paymentIntentId}`, lane: lanes.paymentIntent },
  handler:
    ({ sandboxDisputes }) =>
    (p) =>
      sandboxDisputes.open(p.paymentIntentId),
});

/** Each sandbox card payment that succeeded becomes a job, in the consumer's transaction; the job opens a dispute only for the disputed test card. */
export function sandboxDisputeConsumer(clock: Clock): ConsumerSpec {
  return {
    name: 'dispute-sandbox-open',
    checkpointTable: 'bus_checkpoints',
    handles: ['payment_intent.succeeded'],
    handle: async (trx: Knex.Transaction, events: readonly RecordedEvent[]) => {
      for (const event of events) {
        if (event.type !== 'payment_intent.succeeded' || event.metadata.environment !== 'sandbox') continue;
        const intent = (event.data as { object?: { id?: string; payment_method?: { type?: string } | null } }).object;
        if (!intent?.id || intent.payment_method?.type !== 'card') continue;
        await enqueue(trx, sandboxDispute.job, { paymentIntentId: intent.id }, clock.now());
      }
    },
  };
}
