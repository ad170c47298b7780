import { statusCheckKey } from '../../../connectors/callbacks.js';
import type { PayoutStatusCheck } from '../payout/commands.js';
import { defineProcess, lanes } from '../../../processes/process.js';

/**
 * A status check of a payout attempt with no final answer on a rail that is asked (pawaPay): the
 * provider's record decides, and the next check is set on the connector's schedule
 * (docs/connectors.md, "Status checks"). One job per check, so the next one is set while this one runs.
 */
export const payoutStatusCheck = defineProcess<PayoutStatusCheck>({
  job: { name: 'payout.status_check', key: (p) => `payout-status:${p.payoutId}:${statusCheckKey(p)}`, lane: lanes.payout },
  handler: ({ payouts }) => (p) => payouts.checkStatus(p),
});
