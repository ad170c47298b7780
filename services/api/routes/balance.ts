import type { Knex } from 'knex';
import { route, type Family } from '../../../packages/http/routes.js';
import { balancesOf } from '../../../projections/balances.js';

const amounts = { type: 'array', items: { type: 'object', properties: { amount: { type: 'integer' }, currency: { type: 'string' } } } };

/** GET /api/v1/balance: the merchant's funds per currency, from the ledger's projection. */
export function balanceFamily(knex: Knex): Family {
  return {
    name: 'balance',
    routes: [
      route({
        method: 'get',
        path: '/api/v1/balance',
        summary: 'Available, pending and reserved funds per currency',
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        response: { type: 'object', properties: { object: { const: 'balance' }, livemode: { type: 'boolean' }, available: amounts, pending: amounts, reserved: amounts } },
        handler: async (ctx) => {
          const rows = await balancesOf(knex, ctx.owner);
          const of = (field: 'available' | 'pending' | 'reserved') => rows.map((r) => ({ amount: Number(r[field]), currency: r.currency }));
          return { object: 'balance', livemode: ctx.principal.livemode, available: of('available'), pending: of('pending'), reserved: of('reserved') };
        },
      }),
    ],
  };
}
