import type { DeliveryJob } from '../webhooks/dispatcher.js';
import { defineProcess, lanes } from './process.js';

/** One attempt of one webhook delivery; a failed attempt enqueues the next one on the retry schedule. */
export const webhookDelivery = defineProcess<DeliveryJob>({
  job: { name: 'webhook.deliver', key: (p) => `deliver:${p.deliveryId}:${p.attempt}`, lane: lanes.delivery },
  handler: ({ webhooks }) => (p) => webhooks.deliver(p.deliveryId),
});
