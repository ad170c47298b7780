import { runLedger } from '../../ledger/index.js';
import type { BalanceRef } from '../../../ledger/entry.js';
import { settleDue } from '../payment-intent/postings.js';
import { defineProcess, lanes } from '../../../processes/process.js';

/** When pending funds become available: the balance moves what is due from pending to available. */
export const ledgerSettlement = defineProcess<BalanceRef>({
  job: { name: 'ledger.settle', key: (p, runAt) => `settle:${p.merchantId}:${p.environment}:${p.currency}:${runAt.toISOString()}`, lane: lanes.merchant },
  handler:
    ({ store, clock }) =>
    async ({ merchantId, environment, currency }) => {
      await runLedger(store, clock, merchantId, environment, currency, settleDue(), { merchant_id: merchantId, environment, actor: 'scheduler', occurred_at: clock.now().toISOString() });
    },
});
