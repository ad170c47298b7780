import type { Knex } from 'knex';
import { ApiError } from '../../../../packages/core/errors.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { balancesOf, heldFundsOf, HELD_KINDS } from '../../../../projections/ledger/balances.js';
import { balancesAt, dailySummaries, escrowedAt } from '../../../../projections/ledger/ledger-entries.js';
import { sellerFundsAt } from '../../../../projections/marketplace/marketplace-funds.js';
import { endOfSecond, listSchema, unixTimeQuery } from '../shared.js';

/** At most a year of days per request: a summary is one row per day and currency. */
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

const dailySummary = {
  type: 'object',
  properties: {
    object: { const: 'balance_summary' },
    date: { type: 'string', format: 'date' },
    currency: { type: 'string' },
    opening: { type: 'integer' },
    in: { type: 'integer', description: 'Payments received and funding campaigns released, gross' },
    out: { type: 'integer', description: 'Payouts paid and refunds, without fees' },
    fees: { type: 'integer', description: 'Fees on payments, funding releases and payouts paid' },
    closing: { type: 'integer', description: 'opening + in - out - fees' },
  },
};

/** A `YYYY-MM-DD` that ajv accepted as a date, as the instant its UTC day starts. */
const utcDay = (date: string): Date => new Date(`${date}T00:00:00Z`);

const amounts = { type: 'array', items: { type: 'object', properties: { amount: { type: 'integer' }, currency: { type: 'string' } } } };

/** GET /api/v1/balance: the merchant's funds per currency, now or (`as_of`) as the ledger stood at a past moment. */
export function balanceFamily(knex: Knex): Family {
  return {
    name: 'balance',
    description: 'The merchant\'s balance per currency (available, pending, reserved), now or as it stood at a moment, and daily summaries that add up.',
    routes: [
      route<unknown, { as_of?: number }>({
        method: 'get',
        path: '/api/v1/balance',
        summary: 'Available, pending and reserved funds per currency; `as_of` (Unix seconds) gives them as they stood then',
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: { type: 'object', properties: { as_of: unixTimeQuery }, additionalProperties: false },
        response: {
          type: 'object',
          properties: {
            object: { const: 'balance' },
            livemode: { type: 'boolean' },
            available: amounts,
            pending: amounts,
            reserved: amounts,
            seller_funds: {
              description: "Marketplace sellers' funds, apart from the merchant's own (docs/marketplace.md); only for merchants that have any",
              type: 'array',
              items: { type: 'object', properties: { currency: { type: 'string' }, pending: { type: 'integer' }, available: { type: 'integer' } } },
            },
            escrowed: { ...amounts, description: "Held in escrow contracts for the merchant's payers, never in available (docs/escrow.md); only for merchants that have had any" },
            held: {
              description:
                'Funds the merchant holds for others, per kind of account of the ledger and currency (docs/ledger.md): escrow contracts, funding campaigns, marketplace sellers (pending, available, payouts in flight). Current only (not with `as_of`); only for merchants that have had any',
              type: 'array',
              items: { type: 'object', properties: { kind: { enum: [...HELD_KINDS] }, amount: { type: 'integer' }, currency: { type: 'string' } } },
            },
          },
        },
        handler: async (ctx) => {
          const asOf = ctx.query.as_of;
          const rows = asOf === undefined ? await balancesOf(knex, ctx.owner) : await balancesAt(knex, ctx.owner, endOfSecond(asOf));
          const of = (field: 'available' | 'pending' | 'reserved') => rows.map((r) => ({ amount: Number(r[field]), currency: r.currency }));
          const own = { object: 'balance', livemode: ctx.principal.livemode, available: of('available'), pending: of('pending'), reserved: of('reserved') };
          if (asOf !== undefined) {
            // As the ledger stood then: summed from the entries up to that moment.
            const at = endOfSecond(asOf);
            const [sellerFunds, escrowed] = await Promise.all([sellerFundsAt(knex, ctx.owner, at), escrowedAt(knex, ctx.owner, at)]);
            return { ...own, ...(sellerFunds.length > 0 ? { seller_funds: sellerFunds } : {}), ...(escrowed.length > 0 ? { escrowed } : {}) };
          }
          // Now: from the accounts as they stand, whatever the history's length.
          const held = await heldFundsOf(knex, ctx.owner);
          const sum = (currency: string, ...kinds: string[]) => held.filter((h) => h.currency === currency && kinds.includes(h.kind)).reduce((total, h) => total + h.amount, 0);
          const currencies = (...kinds: string[]) => [...new Set(held.filter((h) => kinds.includes(h.kind)).map((h) => h.currency))];
          const sellerFunds = currencies('seller_pending', 'seller_available').map((currency) => ({ currency, pending: sum(currency, 'seller_pending'), available: sum(currency, 'seller_available') }));
          const escrowed = currencies('escrow').map((currency) => ({ amount: sum(currency, 'escrow'), currency }));
          return { ...own, ...(sellerFunds.length > 0 ? { seller_funds: sellerFunds } : {}), ...(escrowed.length > 0 ? { escrowed } : {}), ...(held.length > 0 ? { held } : {}) };
        },
      }),
      route<unknown, { from: string; to: string }>({
        method: 'get',
        path: '/api/v1/balance/summaries',
        summary: 'Daily balance summary per currency from `from` to `to` (UTC dates, at most 366 days): opening + in - out - fees = closing',
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: {
          type: 'object',
          properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' } },
          required: ['from', 'to'],
          additionalProperties: false,
        },
        response: listSchema(dailySummary),
        handler: async (ctx) => {
          const from = utcDay(ctx.query.from);
          const to = utcDay(ctx.query.to);
          if (to < from) throw new ApiError('IKW-VAL-001', '`to` is before `from`', 'to');
          if ((to.getTime() - from.getTime()) / DAY_MS >= MAX_DAYS) throw new ApiError('IKW-VAL-001', `At most ${MAX_DAYS} days per request`, 'to');
          const days = await dailySummaries(knex, ctx.owner, from, to);
          return { object: 'list', data: days.map((d) => ({ object: 'balance_summary', ...d })) };
        },
      }),
    ],
  };
}
