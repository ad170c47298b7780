import type { RefundRef } from '../refund/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/**
 * Mends a refund a crash left pending: its ledger side is posted or it fails. Scheduled only on a
 * store without atomic commits (EventStoreDB); on PostgreSQL a refund commits with its money.
 */
export const refundReconcile = defineProcess<RefundRef>({
  job: { name: 'refund.reconcile', key: (p) => `refund:${p.refundId}`, lane: lanes.merchant },
  handler:
    ({ billing }) =>
    (p) =>
      billing.refunds.reconcile(p),
});
