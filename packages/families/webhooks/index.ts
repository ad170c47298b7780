import { accounts } from '#packages/families/accounts/index.js';
import { WebhookEndpoints } from './commands.js';
import { webhookDelivery, webhookFirstAttempts } from './processes/webhook-delivery.js';
import { enqueueMany } from '#packages/scheduler/scheduler.js';
import { WebhookEventConsumer } from './consumer.js';
import { WebhookDeliverer } from './delivery.js';
import { DeliveryQueue } from './delivery-queue.js';
import { WebhookReplays } from './replays.js';
import { WebhookTestEvents } from './test-events.js';
import { EventWaits } from './event-waits.js';
import { defineFamily } from '#packages/families/family.js';
import { webhooksReadSide } from './read/index.js';
import { webhookErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    webhookDeliverer: WebhookDeliverer;
  }
}

/** Webhook endpoints, the dispatcher that delivers to them (its consumer, delivery, test events and replays), and the events API's long polls (docs/webhooks.md). */
export const webhooks = defineFamily({
  name: 'webhooks',
  readSide: webhooksReadSide,
  needs: [accounts],
  errors: webhookErrors,
  processes: [webhookDelivery, webhookFirstAttempts],
  build: ({ config, db, store, clock, knex, secretBox, notifier, instance, deadlines, publicEvents, atClose }) => {
    const webhookEndpoints = new WebhookEndpoints(store, clock, secretBox, config.webhookAllowedPrivateRanges, publicEvents);
    // Every delivery starts in the queue, whoever asks for it: the log's consumer, a test event, a replay.
    const queue = new DeliveryQueue({ clock, enqueueFirstAttempts: (db, jobs) => enqueueMany(db, webhookFirstAttempts.job, jobs) });
    const webhookDeliverer = new WebhookDeliverer({
      knex,
      enqueueDeliveries: (db, jobs) => enqueueMany(db, webhookDelivery.job, jobs),
      clock,
      box: secretBox,
      endpoints: webhookEndpoints,
      notifier,
      retryScheduleMs: config.webhookRetryScheduleMs,
      allowedPrivateRanges: config.webhookAllowedPrivateRanges,
      timeoutMs: deadlines.webhookTimeoutMs ?? 15_000,
    });
    atClose(() => webhookDeliverer.close());
    return {
      webhookEndpoints,
      webhookEventConsumer: new WebhookEventConsumer(publicEvents, queue),
      webhookDeliverer,
      webhookTestEvents: new WebhookTestEvents({ knex, clock, publicEvents }, queue),
      webhookReplays: new WebhookReplays({ knex, clock }, queue),
      /** The events API's long polls, woken by the dispatcher's notifications, within their slots. */
      eventWaits: new EventWaits({ knex, notifications: db.notifications, clock, instanceId: instance.id, limits: config.eventWaits }),
    };
  },
  consumers: ({ webhookEventConsumer }) => [webhookEventConsumer.consumer()],
});

// What other families use of this one (its public face): they import it from here, never from its files.
export type { PublicEventCatalogue } from '#packages/core/public-events.js';
export type { SealedSecret } from './events.js';
export { testEventId } from './test-events.js';
