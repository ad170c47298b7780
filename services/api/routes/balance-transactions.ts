import type { Knex } from 'knex';
import { unixSeconds } from '../../../packages/core/clock.js';
import { cursorListQuery, cursorPage, type CursorQuery } from '../../../packages/http/pagination.js';
import { route, type Family } from '../../../packages/http/routes.js';
import type { BalanceTransactionRow } from '../../../projections/balance-transactions.js';

const TYPES = ['payment', 'payout', 'payout_failure', 'refund'];

function render(row: BalanceTransactionRow) {
  return {
    id: row.id,
    object: 'balance_transaction',
    amount: Number(row.amount),
    fee: Number(row.fee),
    net: Number(row.net),
    currency: row.currency,
    type: row.type,
    status: row.status,
    source: row.source,
    available_on: unixSeconds(row.available_on),
    created: unixSeconds(row.created_at),
    livemode: row.environment === 'live',
  };
}

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
        query: {
          ...cursorListQuery,
          properties: { ...cursorListQuery.properties, type: { enum: TYPES }, source: { type: 'string', maxLength: 255 } },
        },
        handler: (ctx) => {
          const base = knex('read.balance_transactions').select('*').where({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment });
          if (ctx.query.type) base.andWhere({ type: ctx.query.type });
          if (ctx.query.source) base.andWhere({ source: ctx.query.source });
          return cursorPage(base, ctx.query, '/api/v1/balance-transactions', 'id', render);
        },
      }),
    ],
  };
}
