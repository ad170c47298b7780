import type { ReadSide } from '../read-side.js';
import { balancesProjection } from './balances.js';
import { balanceTransactionsProjection } from './balance-transactions.js';
import { ledgerEntriesProjection } from './ledger-entries.js';

/** The ledger: balances, balance transactions and ledger entries. */
export const ledgerReadSide: ReadSide = {
  family: 'ledger',
  readModels: [balancesProjection, balanceTransactionsProjection, ledgerEntriesProjection],
};

// The queries other code reads this family by.
export { HELD_KINDS, balancesOf, heldFundsOf } from './balances.js';
export {
  BALANCE_TRANSACTION_CSV_COLUMNS,
  type BalanceTransactionFilters,
  balanceTransactionRecords,
  listBalanceTransactions,
} from './balance-transactions.js';
export { balancesAt, dailySummaries, escrowedAt } from './ledger-entries.js';
