import { statusCheckKey } from '#packages/connectors/callbacks.js';
import { StatusNotYet } from '#packages/connectors/port.js';
import { JobWaits } from '#packages/scheduler/scheduler.js';
import type { PayoutStatusCheck } from '../payout/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/**
 * A status check of a payout attempt with no final answer on a rail that is asked (pawaPay): the
 * provider's record decides, and the next check is set on the connector's schedule
 * (docs/connectors.md, "Status checks"). One job per check, so the next one is set while this one runs.
 */
export const payoutStatusCheck = defineProcess<PayoutStatusCheck>({
  job: { name: 'payout.status_check', key: (p) => `payout-status:${p.payoutId}:${statusCheckKey(p)}`, lane: lanes.payout },
  handler:
    ({ payoutOperatorSide }) =>
    async (p) => {
      try {
        await payoutOperatorSide.checkStatus(p);
      } catch (err) {
        // The provider cannot tell yet (a send still settling): a wait, not a failure.
        throw err instanceof StatusNotYet ? new JobWaits(err.message) : err;
      }
    },
});
