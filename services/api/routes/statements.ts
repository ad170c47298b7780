import type { Knex } from 'knex';
import { ApiError } from '../../../packages/core/errors.js';
import type { Statements } from '../../../packages/families/statements/commands.js';
import { STATEMENT_CATEGORIES, type StatementInput, type StatementLanguage } from '../../../packages/families/statements/index.js';
import type { StatementCategory } from '../../../packages/families/statements/statement.js';
import { csvReply } from '../../../packages/http/csv.js';
import { Readable } from 'node:stream';
import { Reply } from '../../../packages/http/context.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import { findMerchant } from '../../../projections/merchants/index.js';
import type { CursorQuery } from '../../../projections/paging.js';
import { findStatement, listStatements, STATEMENT_CSV_COLUMNS, statementRecords } from '../../../projections/statements/index.js';
import { currencySchema, cursorListSchema, cursorQuery, found, idParams, resourceSchema } from './shared.js';

const statementsRead: RouteAuth = { scope: 'statements.read', environmentHeader: 'optional' };
const statementsWrite: RouteAuth = { scope: 'statements.write', environmentHeader: 'optional' };

/** What each line sums (docs/statements.md). */
const CATEGORY_WORDS: Record<StatementCategory, string> = {
  payments: 'Payments received, gross (into pending)',
  settlements: 'Payments settled: pending to available (total 0)',
  fees: "Sika's fees: on payments, on payouts paid, on funding releases and disputes (negative)",
  refunds: 'Refunds of payments (negative), and refunds a rail refused given back',
  disputes: 'Card disputes: amounts held, given back or lost (0 until there are any)',
  payouts: 'Payouts: held on sending (available to reserved), paid out of reserved, given back when they fail',
  reserves: 'Rolling reserves held out of payments (pending to reserved)',
  reserve_releases: 'Rolling reserves released (reserved to available)',
  adjustments: "Anything else that moved the balance: escrow funded from or released to it, funding campaigns' releases",
};

const balances = (what: string) => ({
  type: ['object', 'null'],
  required: ['available', 'pending', 'reserved', 'total'],
  description: `${what}, per balance as GET /api/v1/balance shows them; null while the statement is pending`,
  properties: {
    available: { type: 'integer', description: 'Settled funds, in minor units' },
    pending: { type: 'integer', description: 'Payments within their settlement delay, in minor units' },
    reserved: { type: 'integer', description: 'Held for payouts in flight and rolling reserves, in minor units' },
    total: { type: 'integer', description: 'available + pending + reserved' },
  },
});

const statementSchema = resourceSchema('statement', ['status', 'currency', 'period_start', 'period_end', 'opening', 'lines', 'closing', 'csv_url', 'created', 'ready_at', 'livemode'], {
  status: {
    enum: ['pending', 'ready'],
    description: 'Whether its figures are computed',
    'x-enumDescriptions': { pending: 'A period longer than 92 days, being computed in the background (`statement.ready` follows)', ready: 'Computed: opening + Σ lines = closing' },
  },
  currency: { type: 'string', description: 'The currency, in lower case' },
  period_start: { type: 'integer', description: "The period's first instant (Unix seconds, UTC midnight)" },
  period_end: { type: 'integer', description: 'The first instant after the period (Unix seconds, UTC midnight): the period is [period_start, period_end)' },
  opening: balances('The balances at `period_start`'),
  lines: {
    type: 'array',
    description: 'One line per category, in this order, each what its entries moved on each balance; empty while pending',
    items: {
      type: 'object',
      required: ['category', 'available', 'pending', 'reserved', 'total', 'count', 'url'],
      properties: {
        category: { enum: [...STATEMENT_CATEGORIES], description: 'What the line sums', 'x-enumDescriptions': CATEGORY_WORDS },
        available: { type: 'integer', description: 'What it moved on available, in minor units' },
        pending: { type: 'integer', description: 'What it moved on pending' },
        reserved: { type: 'integer', description: 'What it moved on reserved' },
        total: { type: 'integer', description: 'available + pending + reserved' },
        count: { type: 'integer', description: 'How many entries of the ledger it sums' },
        url: { type: 'string', description: 'Its entries with their balance transactions, as CSV' },
      },
    },
  },
  closing: balances('The balances at `period_end`: equal to `opening` plus every line, and to GET /api/v1/balance `as_of` the period\'s last second'),
  csv_url: { type: 'string', description: 'The statement as CSV: its header lines, then each entry with its category and balance transaction' },
  created: { type: 'integer' },
  ready_at: { type: ['integer', 'null'], description: 'When its figures were computed (Unix seconds); null while pending' },
  livemode: { type: 'boolean' },
});

const day = (what: string) => ({ type: 'string', format: 'date', description: what });

/** /api/v1/statements (docs/statements.md): a merchant's statements per currency and period, as JSON and CSV. */
export function statementsFamily(knex: Knex, statements: Statements): Family {
  return {
    name: 'statements',
    description: 'Statements a finance team can file: per currency and period, the balances at both ends and every movement in between by category, each traceable to its balance transactions.',
    routes: [
      route<StatementInput>({
        method: 'post',
        path: '/api/v1/statements',
        summary: 'Create a statement of a currency over a period (the last full calendar month by default, at most 366 days)',
        description: [
          "A statement of the merchant's balances in one currency of the environment over whole UTC days, from `from` to `to` included (both, or neither for the last full calendar month): the balances at the start (`opening`), what each category of movement did to each balance (`lines`), and the balances at the end (`closing`), which equal `opening` plus every line and GET /api/v1/balance `as_of` the last second of the period.",
          '',
          'Up to 92 days it is computed in the request and answered `ready`; a longer period is answered `pending`, computed in the background, and `statement.ready` is sent when it is. `to` before `from`, a period longer than 366 days, or one not over yet is `IKW-VAL-001` (docs/statements.md).',
        ].join('\n'),
        auth: statementsWrite,
        body: {
          type: 'object',
          required: ['currency'],
          additionalProperties: false,
          properties: {
            currency: currencySchema,
            from: day('The first day of the period (UTC), `YYYY-MM-DD`; with `to`'),
            to: day('The last day of the period (UTC), `YYYY-MM-DD`, included; a day that has ended, at most 365 days after `from`'),
          },
        },
        response: statementSchema,
        emits: ['statement.ready'],
        handler: (ctx) => statements.request(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { currency?: string }>({
        method: 'get',
        path: '/api/v1/statements',
        summary: 'List statements, newest first',
        description: "The merchant's statements of the environment, newest first, cursor-paged; `currency` keeps one currency's.",
        auth: statementsRead,
        query: cursorQuery({ currency: { ...currencySchema, description: 'Only the statements of this currency' } }),
        response: cursorListSchema(statementSchema),
        handler: (ctx) => listStatements(knex, ctx.owner, ctx.query, '/api/v1/statements', { currency: ctx.query.currency?.toLowerCase() }),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/statements/:id',
        summary: 'Retrieve a statement',
        description: "A statement of the merchant's; another merchant's, or none, is `404 IKW-RES-001`.",
        auth: statementsRead,
        params: idParams,
        response: statementSchema,
        handler: (ctx) => found('statement', ctx.params.id, findStatement(knex, ctx.owner, ctx.params.id)),
      }),
      route<unknown, { category?: StatementCategory }, { id: string }>({
        method: 'get',
        path: '/api/v1/statements/:id/csv',
        summary: "Download a statement as CSV: its header lines, then every entry of the period with its category and balance transaction",
        description: [
          'The statement as CSV (docs/statements.md): a `row` of `opening`, one `line` per category and `closing`, then one `entry` row per movement of the period, oldest first, with its category, its balance transaction, the ledger entry, its kind and source, and what it moved on each balance. The `entry` rows of a category add up to its `line`.',
          '',
          '`category` gives that line\'s entries alone (each line\'s `url`). A statement still `pending` is `409 IKW-RES-002`; another merchant\'s, or none, is `404 IKW-RES-001`.',
        ].join('\n'),
        auth: statementsRead,
        params: idParams,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: { category: { enum: [...STATEMENT_CATEGORIES], description: "Only this line's entries", 'x-enumDescriptions': CATEGORY_WORDS } },
        },
        refusals: ['IKW-RES-002'],
        answers: { csv: STATEMENT_CSV_COLUMNS },
        handler: async (ctx) => {
          const statement = await found('statement', ctx.params.id, findStatement(knex, ctx.owner, ctx.params.id));
          if (statement.status !== 'ready') throw new ApiError('IKW-RES-002', 'The statement is still being computed: wait for `statement.ready`', 'id');
          return csvReply(STATEMENT_CSV_COLUMNS, statementRecords(knex, ctx.owner, statement, ctx.query.category), `${statement.id}.csv`);
        },
      }),
      route<unknown, { lang?: StatementLanguage }, { id: string }>({
        method: 'get',
        path: '/api/v1/statements/:id/pdf',
        summary: "Download a statement as a PDF, in English or French, with the merchant's name and Sika's",
        description:
          "The statement as a PDF (`Content-Disposition: attachment`) to file or send to an accountant: the period, the opening balances, each line with its number of entries, and the closing balances, in `lang` (`en` by default, or `fr`). The entries themselves are in the CSV. A statement still `pending` is `409 IKW-RES-002`; another merchant's, or none, is `404 IKW-RES-001`.",
        auth: statementsRead,
        params: idParams,
        query: { type: 'object', additionalProperties: false, properties: { lang: { enum: ['en', 'fr'], description: 'The language of the document', 'x-enumDescriptions': { en: 'English (the default)', fr: 'French' } } } },
        refusals: ['IKW-RES-002'],
        answers: { file: 'application/pdf' },
        handler: async (ctx) => {
          const statement = await found('statement', ctx.params.id, findStatement(knex, ctx.owner, ctx.params.id));
          if (statement.status !== 'ready') throw new ApiError('IKW-RES-002', 'The statement is still being computed: wait for `statement.ready`', 'id');
          const merchant = await findMerchant(knex, ctx.owner.merchantId);
          const pdf = await statements.pdf(statement, merchant?.name ?? ctx.owner.merchantId, ctx.query.lang ?? 'en');
          return Reply.stream(Readable.from(pdf), 'application/pdf', { 'Content-Disposition': `attachment; filename="${statement.id}.pdf"` });
        },
      }),
    ],
  };
}
