import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { balancesOf, heldFundsOf, HELD_KINDS } from '../read/balances.js';
import { balancesAt, dailySummaries, escrowedAt } from '../read/ledger-entries.js';
import { sellerFundsAt } from '#packages/families/marketplace/read/index.js';
import { endOfSecond, listSchema, unixTimeQuery } from '#packages/http/route-kit.js';

/** At most a year of days per request: a summary is one row per day and currency. */
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

const dailySummary = {
  type: 'object',
  properties: {
    object: { const: 'balance_summary', description: 'The kind of object: always `balance_summary`' },
    date: { type: 'string', format: 'date', description: 'The day summarised (UTC), `YYYY-MM-DD`' },
    currency: { type: 'string', description: 'The currency, in lower case; one summary per day and currency' },
    opening: { type: 'integer', description: "The balance (available + pending + reserved) at the day's start: the previous day's `closing`" },
    in: { type: 'integer', description: 'Payments received and funding campaigns released, gross' },
    out: { type: 'integer', description: 'Payouts paid and refunds, without fees' },
    fees: { type: 'integer', description: 'Fees on payments, funding releases and payouts paid' },
    closing: { type: 'integer', description: 'opening + in - out - fees: the balance `as_of` the last second of the day' },
  },
};

/** A `YYYY-MM-DD` that ajv accepted as a date, as the instant its UTC day starts. */
const utcDay = (date: string): Date => new Date(`${date}T00:00:00Z`);

const amounts = {
  type: 'array',
  items: {
    type: 'object',
    properties: { amount: { type: 'integer', description: 'The funds, in minor units of the currency' }, currency: { type: 'string', description: 'The currency, in lower case' } },
  },
};

/** GET /api/v1/balance: the merchant's funds per currency, now or (`as_of`) as the ledger stood at a past moment. */
export function balanceRoutes(knex: Knex): RouteGroup {
  return {
    name: 'balance',
    description: "The merchant's balance per currency (available, pending, reserved), now or as it stood at a moment, and daily summaries that add up.",
    routes: [
      route<unknown, { as_of?: number }>({
        method: 'get',
        path: '/api/v1/balance',
        summary: 'Available, pending and reserved funds per currency; `as_of` (Unix seconds) gives them as they stood then',
        description: [
          "The merchant's funds of the environment, per currency: `available` (settled, may be paid out or refunded), `pending` (payments within their settlement delay) and `reserved` (held for payouts and batches in flight, amount + fee). Funds held for others (escrow, funding campaigns, marketplace sellers) are apart, never in `available`.",
          '',
          'With `as_of` (Unix seconds) it answers the balance as the ledger stood at the end of that second, summed from its entries: what a month-end close or an auditor asks for.',
        ].join('\n'),
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: {
          type: 'object',
          properties: { as_of: { ...unixTimeQuery, description: 'A past moment (Unix seconds): the balance as it stood at the end of that second; now when absent' } },
          additionalProperties: false,
        },
        response: {
          type: 'object',
          properties: {
            object: { const: 'balance', description: 'The kind of object: always `balance`' },
            livemode: { type: 'boolean', description: "`true` for the live environment's balance, `false` for sandbox's" },
            available: { ...amounts, description: 'Settled funds, per currency: what payouts and refunds may use' },
            pending: { ...amounts, description: 'Payments received within their settlement delay, per currency (net of fees); available at their `available_on`' },
            reserved: { ...amounts, description: 'Held for payouts and payout batches in flight (amount + fee), per currency; back to available if they fail' },
            seller_funds: {
              description: "Marketplace sellers' funds, apart from the merchant's own (docs/marketplace.md); only for merchants that have any",
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  currency: { type: 'string', description: 'The currency, in lower case' },
                  pending: { type: 'integer', description: "Sellers' shares not yet settled, in minor units" },
                  available: { type: 'integer', description: "Sellers' settled funds, in minor units" },
                },
              },
            },
            escrowed: { ...amounts, description: "Held in escrow contracts for the merchant's payers, never in available (docs/escrow.md); only for merchants that have had any" },
            held: {
              description:
                'Funds the merchant holds for others, per kind of account of the ledger and currency (docs/ledger.md): escrow contracts, funding campaigns, marketplace sellers (pending, available, payouts in flight). Current only (not with `as_of`); only for merchants that have had any',
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  kind: {
                    enum: [...HELD_KINDS],
                    description: 'The kind of account the funds are held in',
                    'x-enumDescriptions': {
                      escrow: "Escrow contracts' funds (docs/escrow.md)",
                      campaign: "Funding campaigns' contributions until release (docs/funding.md)",
                      seller_pending: "Marketplace sellers' shares not yet settled",
                      seller_available: "Marketplace sellers' settled funds",
                      seller_payouts: 'Holds of payouts to sellers in flight (amount + fee)',
                    },
                  },
                  amount: { type: 'integer', description: 'The funds, in minor units' },
                  currency: { type: 'string', description: 'The currency, in lower case' },
                },
              },
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
        description:
          "One summary per day (UTC) and currency from `from` to `to`, both included, for each currency with entries by then: the balance the merchant holds (available + pending + reserved) at the day's opening, what came in, what went out, the fees, and the closing, which always equals opening + in − out − fees and the next day's opening. A payout counts on the day it is paid. `to` before `from`, or more than 366 days, is `IKW-VAL-001` (docs/reconciliation.md).",
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: {
          type: 'object',
          properties: {
            from: { type: 'string', format: 'date', description: 'The first day (UTC), `YYYY-MM-DD`' },
            to: { type: 'string', format: 'date', description: 'The last day (UTC), `YYYY-MM-DD`, at most 365 days after `from`' },
          },
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
