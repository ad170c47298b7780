import type { PayoutCallback } from '../providers/port.js';
import { defineProcess, lanes } from './process.js';

/** The operator's news about a payout (delayed, paid, failed) moves it on and settles its ledger side. */
export const payoutCallback = defineProcess<PayoutCallback>({
  // One job per report and moment: a delay report and the final answer are different jobs.
  job: { name: 'payout.callback', key: (p, runAt) => `payout:${p.payoutId}:${p.report.type}:${runAt.getTime()}`, lane: lanes.payout },
  handler:
    ({ payouts }) =>
    async (callback) => {
      await payouts.applyCallback(callback, 'provider:sandbox');
    },
});
