import type { PayoutRef } from '../payout/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** At a payout's expected_by: one still not final gets the delay overlay. */
export const payoutOverdue = defineProcess<PayoutRef>({
  job: { name: 'payout.overdue', key: (p) => `overdue:${p.payoutId}`, lane: lanes.payout },
  handler:
    ({ payoutOperatorSide }) =>
    (p) =>
      payoutOperatorSide.checkOverdue(p),
});
