import type { PayoutRef } from '../payout/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** Mends a crash between a balance hold and its payout: the hold is released or the ledger side posted. */
export const payoutReconcile = defineProcess<PayoutRef & { currency: string }>({
  job: { name: 'payout.reconcile', key: (p) => `reconcile:${p.payoutId}`, lane: lanes.payout },
  handler:
    ({ payouts }) =>
    (p) =>
      payouts.reconcile(p),
});
