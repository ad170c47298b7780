import type { Knex } from 'knex';
import { ApiError } from '../../../../packages/core/errors.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { acceptsCsv, csvReply } from '../../../../packages/http/csv.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import {
  BALANCE_TRANSACTION_CSV_COLUMNS,
  balanceTransactionRecords,
  listBalanceTransactions,
  type BalanceTransactionFilters,
} from '../../../../projections/ledger/balance-transactions.js';
import { findPayout } from '../../../../projections/payouts/payouts.js';
import { createdQuery, createdRange, cursorListSchema, cursorQuery, resourceSchema, type CreatedQuery } from '../shared.js';

const TYPES = ['payment', 'payout', 'payout_failure', 'refund', 'refund_failure', 'escrow_funding', 'escrow_release', 'escrow_refund', 'funding_release'];

const balanceTransactionSchema = resourceSchema('balance_transaction', ['amount', 'fee', 'net', 'currency', 'type', 'status', 'source', 'available_on', 'created', 'livemode'], {
  amount: { type: 'integer', description: 'Minor units; negative when money leaves the balance' },
  fee: { type: 'integer' },
  net: { type: 'integer', description: 'amount − fee' },
  currency: { type: 'string' },
  type: { enum: TYPES },
  status: { enum: ['pending', 'available'] },
  source: { type: 'string', description: 'The payment intent, payout, refund, contract or campaign it comes from' },
  available_on: { type: 'integer', description: 'When it becomes (or became) available (Unix seconds)' },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});

type ListQuery = CursorQuery & CreatedQuery & { type?: string; source?: string; payout?: string };

/**
 * GET /api/v1/balance-transactions: every movement of the balance, newest first (cursor paging),
 * or with `Accept: text/csv` all that match, oldest first, streamed (docs/reconciliation.md).
 */
export function balanceTransactionsFamily(knex: Knex): Family {
  return {
    name: 'balance-transactions',
    description: 'Every movement of the merchant\'s balance, one line per posting of the ledger, for reconciliation: payments, fees, refunds, payouts, reserves.',
    routes: [
      route<unknown, ListQuery>({
        method: 'get',
        path: '/api/v1/balance-transactions',
        summary:
          'List balance transactions, newest first; with `created[lte]` each has the status it had at that moment; `payout` gives those the payout drew on; `Accept: text/csv` exports every match as CSV, oldest first',
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: cursorQuery({
          type: { enum: TYPES },
          source: { type: 'string', maxLength: 255 },
          payout: { type: 'string', minLength: 1, maxLength: 255 },
          ...createdQuery,
        }),
        response: cursorListSchema(balanceTransactionSchema),
        answers: { csv: BALANCE_TRANSACTION_CSV_COLUMNS },
        handler: async (ctx) => {
          const { type, source, payout } = ctx.query;
          if (payout !== undefined && !(await findPayout(knex, ctx.owner, payout))) throw new ApiError('IKW-RES-001', `No such payout: '${payout}'`, 'payout');
          const filters: BalanceTransactionFilters = { type, source, payout, created: createdRange(ctx.query) };
          if (acceptsCsv(ctx.header('accept'))) return csvReply(BALANCE_TRANSACTION_CSV_COLUMNS, balanceTransactionRecords(knex, ctx.owner, filters), 'balance_transactions.csv');
          return listBalanceTransactions(knex, ctx.owner, ctx.query, '/api/v1/balance-transactions', filters);
        },
      }),
    ],
  };
}
