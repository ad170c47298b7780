import type { SubscriptionRef } from '../subscription/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** At a subscription invoice's due date: unpaid, the subscription becomes past_due. */
export const subscriptionInvoiceDue = defineProcess<SubscriptionRef & { invoiceId: string }>({
  job: { name: 'subscription.invoice_due', key: (p) => `due:${p.invoiceId}`, lane: lanes.merchant },
  handler:
    ({ billing }) =>
    (p) =>
      billing.subscriptions.invoiceDueJob(p),
});
