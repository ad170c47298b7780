import type { Knex } from 'knex';
import type { CursorQuery } from '../../../projections/paging.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { listBalanceTransactions, type CreatedRange } from '../../../projections/balance-transactions.js';
import { cursorQuery, endOfSecond, unixTimeQuery } from './shared.js';

const TYPES = ['payment', 'payout', 'payout_failure', 'refund'];

type CreatedQuery = { 'created[gt]'?: number; 'created[gte]'?: number; 'created[lt]'?: number; 'created[lte]'?: number };

/** `created[…]` in Unix seconds as instants: a bound on a second covers all of it, as `created` is floored. */
function createdRange(q: CreatedQuery): CreatedRange {
  const range: CreatedRange = {};
  if (q['created[gt]'] !== undefined) range.gt = endOfSecond(q['created[gt]']);
  if (q['created[gte]'] !== undefined) range.gte = new Date(q['created[gte]'] * 1000);
  if (q['created[lt]'] !== undefined) range.lt = new Date(q['created[lt]'] * 1000);
  if (q['created[lte]'] !== undefined) range.lte = endOfSecond(q['created[lte]']);
  return range;
}

/** GET /api/v1/balance-transactions: every movement of the balance, newest first (cursor paging). */
export function balanceTransactionsFamily(knex: Knex): Family {
  return {
    name: 'balance-transactions',
    routes: [
      route<unknown, CursorQuery & CreatedQuery & { type?: string; source?: string }>({
        method: 'get',
        path: '/api/v1/balance-transactions',
        summary: 'List balance transactions, newest first; with `created[lte]` each has the status it had at that moment',
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: cursorQuery({
          type: { enum: TYPES },
          source: { type: 'string', maxLength: 255 },
          'created[gt]': unixTimeQuery,
          'created[gte]': unixTimeQuery,
          'created[lt]': unixTimeQuery,
          'created[lte]': unixTimeQuery,
        }),
        handler: (ctx) =>
          listBalanceTransactions(knex, ctx.owner, ctx.query, '/api/v1/balance-transactions', { type: ctx.query.type, source: ctx.query.source, created: createdRange(ctx.query) }),
      }),
    ],
  };
}
