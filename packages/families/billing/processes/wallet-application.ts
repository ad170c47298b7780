import type { WalletApplicationRef } from '../invoice/commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** Mends a wallet payment of an invoice that a crash left half done: the invoice takes it or the wallet gets it back. */
export const walletApplication = defineProcess<WalletApplicationRef>({
  job: { name: 'invoice.wallet_application', key: (p) => `wallet:${p.applicationId}`, lane: lanes.merchant },
  handler:
    ({ billing, clock }) =>
    async (p) => {
      await billing.invoiceWalletPayments.completeApplication(p, auditMetadata(clock, p, p.invoiceId, { actor: 'scheduler' }));
    },
});
