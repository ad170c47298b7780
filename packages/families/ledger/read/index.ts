import type { ReadSide } from '#packages/read-models/read-side.js';
import { balancesProjection } from './balances.js';
import { balanceTransactionsProjection } from './balance-transactions.js';
import { ledgerEntriesProjection } from './ledger-entries.js';
import { reconciliationRunsProjection } from './reconciliation-runs.js';

/** The ledger: balances, balance transactions and ledger entries, and the rails' reconciliation runs. */
export const ledgerReadSide: ReadSide = {
  family: 'ledger',
  readModels: [balancesProjection, balanceTransactionsProjection, ledgerEntriesProjection, reconciliationRunsProjection],
};

// The queries other code reads this family by.
export { HELD_KINDS, balancesOf, heldFundsOf } from './balances.js';
export { BALANCE_TRANSACTION_CSV_COLUMNS, type BalanceTransactionFilters, balanceTransactionRecords, listBalanceTransactions } from './balance-transactions.js';
export { balanceBefore, balanceMovements, balancesAt, dailySummaries, escrowedAt, railStatement, type BalanceMovement, type RailStatement } from './ledger-entries.js';
export { findReconciliationRun, listReconciliationRuns } from './reconciliation-runs.js';
