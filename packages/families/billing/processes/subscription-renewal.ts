import type { SubscriptionRef } from '../subscription/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** At the end of a period: the next period starts and is invoiced, or the subscription ends. */
export const subscriptionRenewal = defineProcess<SubscriptionRef & { periodEnd: string }>({
  job: { name: 'subscription.renew', key: (p) => `renew:${p.subscriptionId}:${p.periodEnd}`, lane: lanes.merchant },
  handler:
    ({ billing }) =>
    (p) =>
      billing.subscriptions.renewJob(p),
});
