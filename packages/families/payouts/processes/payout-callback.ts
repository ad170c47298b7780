import type { PayoutCallback } from '#packages/connectors/callbacks.js';
import { payoutOverdue } from './payout-overdue.js';
import { payoutReconcile } from './payout-reconcile.js';
import { defineProcess, lanes } from '#packages/processes/process.js';
import { payoutStatusCheck } from './status-check.js';

/**
 * The operator's news about a payout (delayed, paid, failed) moves it on and settles its ledger
 * side. Claimed and run in batches: the answers to a run of payouts are applied side by side, so
 * those of one balance share its commits, instead of 50 a round at 16 at a time. The payout's
 * timers (overdue, reconcile, status checks) share its lane and run in the same rounds (scheduler.ts), so none
 * overtakes or runs beside its payout's answer.
 */
export const payoutCallback = defineProcess<PayoutCallback>({
  // One job per report and moment: a delay report and the final answer are different jobs.
  job: { name: 'payout.callback', key: (p, runAt) => `payout:${p.payoutId}:${p.report.type}:${runAt.getTime()}`, lane: lanes.payout },
  batch: {
    handler:
      ({ payoutOperatorSide }) =>
      (jobs) =>
        payoutOperatorSide.applyCallbacks(jobs.map((j) => j.payload)),
    claimLimit: 500,
    companions: [payoutOverdue.job.name, payoutReconcile.job.name, payoutStatusCheck.job.name],
  },
});
