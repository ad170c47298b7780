import type { Scheduler } from '../scheduler/scheduler.js';
import { escrowAutoRelease } from './escrow-auto-release.js';
import { escrowFunding } from './escrow-funding.js';
import { fundingDeadline, fundingPayment, fundingPayoutMend } from './funding.js';
import { invoicePayment } from './invoice-payment.js';
import { ledgerSettlement } from './ledger-settlement.js';
import { payinCallback } from './payin-callback.js';
import { payoutBatchItem } from './payout-batch-item.js';
import { payoutBatchRun } from './payout-batch-run.js';
import { payoutCallback } from './payout-callback.js';
import { payoutOverdue } from './payout-overdue.js';
import { payoutReconcile } from './payout-reconcile.js';
import type { Process, ProcessServices } from './process.js';
import { refundReconcile } from './refund-reconcile.js';
import { subscriptionInvoiceDue } from './subscription-invoice-due.js';
import { subscriptionInvoiceIssue } from './subscription-invoice-issue.js';
import { subscriptionRenewal } from './subscription-renewal.js';
import { walletApplication } from './wallet-application.js';
import { webhookDelivery } from './webhook-delivery.js';
import { supportTicketForward } from './support-ticket-forward.js';
import { assetPurge } from './asset-purge.js';
import { automationSchedule } from './automation-schedule.js';
import { automationStep } from './automation-step.js';
import { outboxPurge } from './outbox-purge.js';
import { payinStatusCheck, payoutStatusCheck } from './status-check.js';

export { invoicePayment, invoicePaymentsConsumer } from './invoice-payment.js';
export { fundingDeadline, fundingPayment, fundingPaymentsConsumer, fundingPayoutMend } from './funding.js';
export { payoutBatchItemsConsumer } from './payout-batch-item.js';
export { supportTicketForward, supportTicketsConsumer } from './support-ticket-forward.js';
export { assetPurge, assetPurgeConsumer } from './asset-purge.js';
export { escrowFundingConsumer } from './escrow-funding.js';
export { escrowAutoRelease, escrowFunding };
export { ledgerSettlement, payinCallback, payoutBatchItem, payoutBatchRun, payoutCallback, payoutOverdue, payoutReconcile, refundReconcile };
export { subscriptionInvoiceDue, subscriptionInvoiceIssue, subscriptionRenewal, walletApplication, webhookDelivery };
export { automationSchedule, automationStep, outboxPurge, payinStatusCheck, payoutStatusCheck };
export type { Process, ProcessServices } from './process.js';

/** Every saga and timer of the service: the scheduler runs exactly these job kinds. */
export const PROCESSES: readonly Process<never>[] = [
  payinCallback,
  payoutCallback,
  payoutOverdue,
  payoutReconcile,
  payoutBatchRun,
  payoutBatchItem,
  ledgerSettlement,
  webhookDelivery,
  invoicePayment,
  walletApplication,
  subscriptionRenewal,
  subscriptionInvoiceIssue,
  subscriptionInvoiceDue,
  refundReconcile,
  supportTicketForward,
  assetPurge,
  escrowFunding,
  escrowAutoRelease,
  fundingPayment,
  fundingDeadline,
  fundingPayoutMend,
  automationStep,
  automationSchedule,
  outboxPurge,
  payinStatusCheck,
  payoutStatusCheck,
] as readonly Process<never>[];

export function registerProcesses(scheduler: Scheduler, services: ProcessServices): void {
  for (const process of PROCESSES) {
    if (process.batch) scheduler.registerBatch(process.job, process.batch.handler(services), process.batch.claimLimit, process.batch.companions);
    else scheduler.register(process.job, process.handler(services));
  }
}
