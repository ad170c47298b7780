import { statusCheckKey } from '#packages/connectors/callbacks.js';
import type { CollectStatusCheck } from '../payment-intent/commands.js';
import type { RefundStatusCheck } from '../rail-refund/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/**
 * A status check of an attempt with no final answer on a rail that is asked (pawaPay): the
 * provider's record decides, and the next check is set on the connector's schedule
 * (docs/connectors.md, "Status checks"). One job per check, so the next one is set while this one runs.
 */
export const payinStatusCheck = defineProcess<CollectStatusCheck>({
  job: { name: 'payin.status_check', key: (p) => `payin-status:${p.operationId}:${statusCheckKey(p)}`, lane: lanes.paymentIntent },
  handler:
    ({ collectionOutcomes }) =>
    (p) =>
      collectionOutcomes.checkStatus(p),
});

export const refundStatusCheck = defineProcess<RefundStatusCheck>({
  job: { name: 'refund.status_check', key: (p) => `refund-status:${p.refundId}:${statusCheckKey(p)}`, lane: lanes.refund },
  handler:
    ({ railRefunds }) =>
    (p) =>
      railRefunds.checkStatus(p),
});
