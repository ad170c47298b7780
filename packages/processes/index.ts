import type { Scheduler } from '../scheduler/scheduler.js';
import type { Process, ProcessServices } from './process.js';

export { assetPurge, assetPurgeConsumer } from '../families/assets/processes/asset-purge.js';
export { automationSchedule } from '../families/automations/processes/automation-schedule.js';
export { automationStep } from '../families/automations/processes/automation-step.js';
export { escrowAutoRelease } from '../families/escrow/processes/escrow-auto-release.js';
export { escrowFunding, escrowFundingConsumer } from '../families/escrow/processes/escrow-funding.js';
export { fundingDeadline, fundingPayment, fundingPaymentsConsumer, fundingPayoutMend } from '../families/funding/processes/funding.js';
export { invoicePayment, invoicePaymentsConsumer } from '../families/billing/processes/invoice-payment.js';
export { ledgerSettlement } from '../families/payments/processes/ledger-settlement.js';
export { outboxPurge } from './outbox-purge.js';
export { payinCallback } from '../families/payments/processes/payin-callback.js';
export { payinStatusCheck, payoutStatusCheck, refundStatusCheck } from './status-check.js';
export { payoutBatchItem, payoutBatchItemsConsumer } from '../families/payout-engine/processes/payout-batch-item.js';
export { payoutBatchRun } from '../families/payout-engine/processes/payout-batch-run.js';
export { payoutCallback } from '../families/payouts/processes/payout-callback.js';
export { payoutOverdue } from '../families/payouts/processes/payout-overdue.js';
export { payoutReconcile } from '../families/payouts/processes/payout-reconcile.js';
export { refundCallback } from '../families/payments/processes/refund-callback.js';
export { refundReconcile } from '../families/billing/processes/refund-reconcile.js';
export { subscriptionInvoiceDue } from '../families/billing/processes/subscription-invoice-due.js';
export { subscriptionInvoiceIssue } from '../families/billing/processes/subscription-invoice-issue.js';
export { subscriptionRenewal } from '../families/billing/processes/subscription-renewal.js';
export { supportTicketForward, supportTicketsConsumer } from '../families/support/processes/support-ticket-forward.js';
export { walletApplication } from '../families/billing/processes/wallet-application.js';
export { webhookDelivery } from '../families/webhooks/processes/webhook-delivery.js';
export type { Process, ProcessServices } from './process.js';

/** Registers these job kinds (the families' and the kernel's: packages/families/index.ts) with their handlers. */
export function registerProcesses(scheduler: Scheduler, processes: readonly Process<never>[], services: ProcessServices): void {
  for (const process of processes) {
    if (process.batch) scheduler.registerBatch(process.job, process.batch.handler(services), process.batch.claimLimit, process.batch.companions);
    else scheduler.register(process.job, process.handler(services));
  }
}
