import type { RefundCallback } from '#packages/connectors/callbacks.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** A rail's verified and matched answer to a refund (docs/connectors.md, "Refunds through a rail") reaches it: once, however often told. */
export const refundCallback = defineProcess<RefundCallback>({
  job: { name: 'refund.callback', key: (p) => `refund-callback:${p.refundId}:${p.outcome.status}`, lane: lanes.refund },
  handler:
    ({ railRefunds }) =>
    (p) =>
      railRefunds.applyCallback(p),
});
