import { accounts } from '../accounts/index.js';
import { WebhookEndpoints } from './commands.js';
import { webhookDelivery, webhookFirstAttempts } from './processes/webhook-delivery.js';
import { enqueueMany } from '../../scheduler/scheduler.js';
import { WebhookDispatcher } from './dispatcher.js';
import { EventWaits } from './event-waits.js';
import { defineFamily } from '../family.js';
import { webhookErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    webhooks: WebhookDispatcher;
  }
}


/** Webhook endpoints, the dispatcher that delivers to them, and the events API's long polls (docs/webhooks.md). */
export const webhooks = defineFamily({
  name: 'webhooks',
  needs: [accounts],
  errors: webhookErrors,
  processes: [webhookDelivery, webhookFirstAttempts],
  build: ({ config, db, store, clock, log, knex, secretBox, notifier, instance, deadlines, publicEvents, atClose }) => {
    const webhookEndpoints = new WebhookEndpoints(store, clock, secretBox, config.webhookAllowedPrivateRanges, publicEvents);
    const webhooks = new WebhookDispatcher({
      knex,
      enqueueDeliveries: (db, jobs) => enqueueMany(db, webhookDelivery.job, jobs),
      enqueueFirstAttempts: (db, jobs) => enqueueMany(db, webhookFirstAttempts.job, jobs),
      clock,
      log,
      box: secretBox,
      endpoints: webhookEndpoints,
      publicEvents,
      notifier,
      retryScheduleMs: config.webhookRetryScheduleMs,
      allowedPrivateRanges: config.webhookAllowedPrivateRanges,
      timeoutMs: deadlines.webhookTimeoutMs ?? 15_000,
    });
    atClose(() => webhooks.close());
    return {
      webhookEndpoints,
      webhooks,
      /** The events API's long polls, woken by the dispatcher's notifications, within their slots. */
      eventWaits: new EventWaits({ knex, notifications: db.notifications, clock, instanceId: instance.id, limits: config.eventWaits }),
    };
  },
  consumers: ({ webhooks }) => [webhooks.consumer()],
});

// What other families use of this one (its public face): they import it from here, never from its files.
export type { PublicEventCatalogue } from './event-types.js';
export type { SealedSecret } from './events.js';
export { testEventId } from './test-events.js';
