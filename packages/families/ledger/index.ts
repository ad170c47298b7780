import { defineFamily } from '#packages/families/family.js';
import { ledgerReadSide } from './read/index.js';
import { ledgerErrors } from './errors.js';

/** The balances' ledger (docs/ledger.md): its chart's merchant accounts, and the steps the families that move money post with. */
export const ledger = defineFamily({
  name: 'ledger',
  readSide: ledgerReadSide,
  needs: [],
  errors: ledgerErrors,
  accounts: {
    available: { owner: 'merchant', mayGoNegative: false, shownAs: 'available', holds: 'settled funds the merchant may pay out or refund' },
    pending: { owner: 'merchant', mayGoNegative: false, shownAs: 'pending', holds: 'payments not yet settled (the settlement delay)' },
    reserved: { owner: 'merchant', mayGoNegative: false, shownAs: 'reserved', holds: "holds of payouts in flight and of payout batches' executions, amount + fee" },
    fees: { owner: 'platform', mayGoNegative: false, shownAs: '(Sika)', holds: "Sika's fees on payments, payouts and releases" },
    card_clearing: { owner: 'outside', mayGoNegative: true, shownAs: '(none)', holds: 'money on its way from or to card networks: negative when it came in' },
    bank_clearing: { owner: 'outside', mayGoNegative: true, shownAs: '(none)', holds: 'money on its way to banks' },
    operator_clearing: { owner: 'outside', mayGoNegative: true, shownAs: '(none)', holds: 'money on its way from or to a mobile money operator (operator_clearing:<operator>)' },
    rail_refunds: {
      owner: 'payers',
      mayGoNegative: false,
      shownAs: '(none)',
      holds: "refunds sent through a rail that keeps Sika's money, not answered yet (rail_refunds:<connector>): out of the balance, not yet out of the rail's wallet",
    },
    rail_clearing: {
      owner: 'outside',
      mayGoNegative: true,
      shownAs: '(none; bin/sika ledger balance --rail)',
      holds: "what a rail that keeps Sika's money in a wallet (rail_clearing:<connector>, e.g. pawapay) holds for it: collections in, less payouts and refunds out; negative when it holds money",
    },
  },
  build: () => ({}),
});

// What other families use of this one (its public face): they import it from here, never from its files.
export { ledgerCommand, ledgerStep, runLedger } from './commands.js';
export type { LedgerDeps } from './commands.js';
export { balanceStream } from './events.js';
export type { Account, BalanceRef, EntryPosted, LedgerEvent } from './events.js';
export { ReconciliationRuns } from './reconciliation-runs.js';
export type { AttemptDifference, RailHolding, RailPeriod, RailReconciliation, ReconciliationRunEvent, ReconciliationRunRecorded, WalletDifference } from './reconciliation-runs.js';
