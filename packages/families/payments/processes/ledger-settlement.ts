import { runLedger } from '#packages/families/ledger/index.js';
import type { BalanceRef } from '#packages/ledger/entry.js';
import { settleDue } from '../payment-intent/postings.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** When pending funds become available: the balance moves what is due from pending to available. */
export const ledgerSettlement = defineProcess<BalanceRef>({
  job: { name: 'ledger.settle', key: (p, runAt) => `settle:${p.merchantId}:${p.environment}:${p.currency}:${runAt.toISOString()}`, lane: lanes.merchant },
  handler:
    (services) =>
    async ({ merchantId, environment, currency }) => {
      const { clock } = services;
      await runLedger(services, merchantId, environment, currency, settleDue(), { merchant_id: merchantId, environment, actor: 'scheduler', occurred_at: clock.now().toISOString() });
    },
});
