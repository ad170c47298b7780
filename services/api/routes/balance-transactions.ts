import type { Knex } from 'knex';
import type { CursorQuery } from '../../../projections/paging.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { listBalanceTransactions } from '../../../projections/balance-transactions.js';
import { cursorQuery } from './shared.js';

const TYPES = ['payment', 'payout', 'payout_failure', 'refund'];

/** GET /api/v1/balance-transactions: every movement of the balance, newest first (cursor paging). */
export function balanceTransactionsFamily(knex: Knex): Family {
  return {
    name: 'balance-transactions',
    routes: [
      route<unknown, CursorQuery & { type?: string; source?: string }>({
        method: 'get',
        path: '/api/v1/balance-transactions',
        summary: 'List balance transactions, newest first',
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: cursorQuery({ type: { enum: TYPES }, source: { type: 'string', maxLength: 255 } }),
        handler: (ctx) => listBalanceTransactions(knex, ctx.owner, ctx.query, '/api/v1/balance-transactions', { type: ctx.query.type, source: ctx.query.source }),
      }),
    ],
  };
}
