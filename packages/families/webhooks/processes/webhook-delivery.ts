import type { DeliveryJob } from '../dispatcher.js';
import { defineProcess, lanes } from '../../../processes/process.js';

/**
 * One attempt of one webhook delivery; a failed attempt enqueues the next one on the retry
 * schedule. Claimed and run in batches (docs/webhooks.md): one read, the requests side by side,
 * one transaction recording them all.
 */
export const webhookDelivery = defineProcess<DeliveryJob>({
  job: { name: 'webhook.deliver', key: (p) => `deliver:${p.deliveryId}:${p.attempt}`, lane: lanes.delivery },
  batch: {
    handler: ({ webhooks }) => (jobs) => webhooks.deliverMany(jobs.map((j) => j.payload.deliveryId)),
    claimLimit: 500,
  },
});
