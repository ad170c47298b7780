import type { SubscriptionRef } from '../subscription/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** Mends a crash between a period's start and its invoice: the invoice is issued (idempotent). */
export const subscriptionInvoiceIssue = defineProcess<SubscriptionRef & { invoiceId: string }>({
  job: { name: 'subscription.issue_invoice', key: (p) => `issue:${p.invoiceId}`, lane: lanes.merchant },
  handler:
    ({ billing }) =>
    (p) =>
      billing.subscriptions.issueJob(p),
});
