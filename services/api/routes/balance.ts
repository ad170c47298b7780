import type { Knex } from 'knex';
import { route, type Family } from '../../../packages/http/routes.js';
import { balancesOf } from '../../../projections/balances.js';
import { balancesAt } from '../../../projections/ledger-entries.js';
import { endOfSecond, unixTimeQuery } from './shared.js';

const amounts = { type: 'array', items: { type: 'object', properties: { amount: { type: 'integer' }, currency: { type: 'string' } } } };

/** GET /api/v1/balance: the merchant's funds per currency, now or (`as_of`) as the ledger stood at a past moment. */
export function balanceFamily(knex: Knex): Family {
  return {
    name: 'balance',
    routes: [
      route<unknown, { as_of?: number }>({
        method: 'get',
        path: '/api/v1/balance',
        summary: 'Available, pending and reserved funds per currency; `as_of` (Unix seconds) gives them as they stood then',
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: { type: 'object', properties: { as_of: unixTimeQuery }, additionalProperties: false },
        response: { type: 'object', properties: { object: { const: 'balance' }, livemode: { type: 'boolean' }, available: amounts, pending: amounts, reserved: amounts } },
        handler: async (ctx) => {
          const asOf = ctx.query.as_of;
          const rows = asOf === undefined ? await balancesOf(knex, ctx.owner) : await balancesAt(knex, ctx.owner, endOfSecond(asOf));
          const of = (field: 'available' | 'pending' | 'reserved') => rows.map((r) => ({ amount: Number(r[field]), currency: r.currency }));
          return { object: 'balance', livemode: ctx.principal.livemode, available: of('available'), pending: of('pending'), reserved: of('reserved') };
        },
      }),
    ],
  };
}
