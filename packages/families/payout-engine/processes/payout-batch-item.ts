import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import type { PayoutRef } from '#packages/families/payouts/index.js';
import type { PayoutObject } from '#packages/families/payouts/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { enqueueMany } from '#packages/scheduler/scheduler.js';
import { defineProcess } from '#packages/processes/process.js';

/**
 * A payout of the payout engine became final: its batch item records the outcome. Claimed and run
 * in batches: the items of one batch settled by many jobs go in one command and one commit of the
 * batch's stream, instead of one commit each on that one hot stream. Its lane is its own, as a
 * batch kind's must be (scheduler.ts).
 */
export const payoutBatchItem = defineProcess<PayoutRef>({
  job: { name: 'payout_batch.item_settled', key: (p) => `payout-batch-item:${p.payoutId}`, lane: (p) => `payout_batch_item:${p.payoutId}` },
  batch: {
    handler:
      ({ payoutBatchExecution }) =>
      (jobs) =>
        payoutBatchExecution.settlePayouts(jobs.map((j) => j.payload)),
    claimLimit: 500,
  },
});

export const PAYOUT_BATCH_ITEMS_CONSUMER = 'payout-batch-items';
const FINAL_PAYOUT_EVENTS = new Set(['payout.paid', 'payout.failed', 'payout.canceled']);

/**
 * The bus consumer that tells batches how their payouts ended: each final event of a payout the
 * payout engine made becomes a job, in the consumer's transaction, so none is lost or doubled.
 * (A merchant may put `source: payout_engine` on an API payout's metadata; its job finds no batch.)
 */
export function payoutBatchItemsConsumer(clock: Clock): ConsumerSpec {
  return {
    name: PAYOUT_BATCH_ITEMS_CONSUMER,
    checkpointTable: 'bus_checkpoints',
    handles: [...FINAL_PAYOUT_EVENTS],
    acts: (event) => engineItemOf(event) !== null,
    handle: async (trx: Knex.Transaction, events: RecordedEvent[]) => {
      const jobs: { payload: PayoutRef; runAt: Date }[] = [];
      for (const event of events) {
        const payload = engineItemOf(event);
        if (payload) jobs.push({ payload, runAt: clock.now() });
      }
      // One INSERT for the lot (a batch's payouts end many at a time).
      await enqueueMany(trx, payoutBatchItem.job, jobs);
    },
  };
}

/** The payout an event ends when the payout engine made it (a final event, `source: payout_engine` on its metadata), else null. */
function engineItemOf(event: RecordedEvent): PayoutRef | null {
  if (!FINAL_PAYOUT_EVENTS.has(event.type)) return null;
  const object = (event.data as { object?: PayoutObject }).object;
  const { merchant_id: merchantId, environment } = event.metadata;
  if (object?.metadata.source !== 'payout_engine' || !merchantId || !environment) return null;
  return { merchantId, environment, payoutId: object.id };
}
