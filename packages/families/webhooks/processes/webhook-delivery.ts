import type { DeliveryJob } from '../delivery.js';
import type { FirstAttemptsJob } from '../delivery-queue.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/**
 * One attempt of one webhook delivery: the retries (a failed attempt enqueues the next one on the
 * retry schedule). Claimed and run in batches (docs/webhooks.md): one read, the requests side by
 * side, one transaction recording them all.
 */
export const webhookDelivery = defineProcess<DeliveryJob>({
  job: { name: 'webhook.deliver', key: (p) => `deliver:${p.deliveryId}:${p.attempt}`, lane: lanes.delivery },
  batch: {
    handler:
      ({ webhookDeliverer }) =>
      (jobs) =>
        webhookDeliverer.deliverMany(jobs.map((j) => j.payload)),
    claimLimit: 500,
  },
});

/**
 * The first attempts of the deliveries one transaction queued (a batch of the log, a replay, a
 * test event): one job for all of them instead of one each, since a job row is written, claimed
 * and deleted (docs/performance.md, step 36). Claimed together, the jobs' deliveries run as one
 * batch; a job is done when each of its deliveries is, and runs again whole otherwise (deliveries
 * already attempted are skipped then).
 */
export const webhookFirstAttempts = defineProcess<FirstAttemptsJob>({
  job: { name: 'webhook.first_attempts', key: (p) => `first-attempts:${p.deliveryIds[0]}`, lane: (p) => lanes.delivery({ deliveryId: p.deliveryIds[0]! }) },
  batch: {
    handler:
      ({ webhookDeliverer }) =>
      async (jobs) => {
        const outcomes = await webhookDeliverer.deliverMany(jobs.flatMap((j) => j.payload.deliveryIds.map((deliveryId) => ({ deliveryId, attempt: 1 }))));
        let at = 0;
        return jobs.map((j) => {
          const mine = outcomes.slice(at, (at += j.payload.deliveryIds.length));
          return mine.find((o) => o !== null) ?? null;
        });
      },
    claimLimit: 20,
  },
});
