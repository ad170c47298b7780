import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { acceptsCsv, csvReply } from '#packages/http/csv.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { BALANCE_TRANSACTION_CSV_COLUMNS, balanceTransactionRecords, listBalanceTransactions, type BalanceTransactionFilters } from '../read/balance-transactions.js';
import { findPayout } from '#packages/families/payouts/read/index.js';
import { createdQuery, createdRange, cursorListSchema, cursorQuery, resourceSchema, type CreatedQuery } from '#packages/http/route-kit.js';

const TYPES = ['payment', 'payout', 'payout_failure', 'refund', 'refund_failure', 'escrow_funding', 'escrow_release', 'escrow_refund', 'funding_release', 'reserve_hold', 'reserve_release'];

/** What each type of balance transaction is (docs/reconciliation.md). */
const TYPE_WORDS: Record<string, string> = {
  payment: 'A payment received (amount gross, its fee apart)',
  payout: 'A payout (negative), its fee apart; `pending` until it is paid',
  payout_failure: "A failed payout's hold given back to the balance",
  refund: 'A refund of a payment (negative)',
  refund_failure: 'A refund the rail refused or failed: its money back (docs/connectors.md)',
  escrow_funding: 'An escrow contract funded from the balance (negative; docs/escrow.md)',
  escrow_release: "An escrow contract's release to the merchant's balance",
  escrow_refund: 'The refund of an escrow contract funded from the balance: its money back on the balance',
  funding_release: "A funding campaign's funds released to the merchant (docs/funding.md)",
  reserve_hold: 'Part of a payment held by the rolling reserve (negative; docs/limits.md): `pending` until its release date, `available_on`; its `source` is the payment intent',
  reserve_release: "A payment's reserve back on the balance, at its release date or when the payment is refunded",
};

const balanceTransactionSchema = resourceSchema('balance_transaction', ['amount', 'fee', 'net', 'currency', 'type', 'status', 'source', 'available_on', 'created', 'livemode'], {
  amount: { type: 'integer', description: 'Minor units; negative when money leaves the balance' },
  fee: { type: 'integer', description: "Sika's fee on it, in minor units (0 when none)" },
  net: { type: 'integer', description: 'amount − fee' },
  currency: { type: 'string', description: 'The currency, in lower case' },
  type: { enum: TYPES, description: 'What moved the balance', 'x-enumDescriptions': TYPE_WORDS },
  status: {
    enum: ['pending', 'available'],
    description: 'Whether its funds are available yet (with `created[lte]`, as they were then)',
    'x-enumDescriptions': { pending: 'Not yet available: a payment within its settlement delay, a payout not yet paid, a reserve not yet released', available: 'Settled: counted in the available balance' },
  },
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
export function balanceTransactionsRoutes(knex: Knex): RouteGroup {
  return {
    name: 'balance-transactions',
    description: "Every movement of the merchant's balance, one line per posting of the ledger, for reconciliation: payments, fees, refunds, payouts, reserves.",
    routes: [
      route<unknown, ListQuery>({
        method: 'get',
        path: '/api/v1/balance-transactions',
        summary: 'List balance transactions, newest first; with `created[lte]` each has the status it had at that moment; `payout` gives those the payout drew on; `Accept: text/csv` exports every match as CSV, oldest first',
        description: [
          "Every movement of the merchant's balance in the environment, one per posting of the ledger (a payment, a payout, a refund, an escrow or funding movement), with its fee and net, newest first, cursor-paged. Filter by `type`, by `source` (the object it comes from) and by creation time. With `created[lte]` each transaction shows the status it had at that moment, so a past statement reads as it did then.",
          '',
          '`payout` lists the transactions whose funds that payout drew on (oldest funds first), which add up to its amount plus fee: "what did this payout settle". With `Accept: text/csv` every match is exported, oldest first, streamed (docs/reconciliation.md).',
        ].join('\n'),
        refusals: ['IKW-RES-001'],
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        query: cursorQuery({
          type: { enum: TYPES, description: 'Only transactions of this type', 'x-enumDescriptions': TYPE_WORDS },
          source: { type: 'string', maxLength: 255, description: 'Only the transactions of this object: a payment intent, payout, refund, contract or campaign id' },
          payout: { type: 'string', minLength: 1, maxLength: 255, description: "A payout id (`po_…`): the transactions whose funds it drew on; another merchant's payout, or none, is `404 IKW-RES-001`" },
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
