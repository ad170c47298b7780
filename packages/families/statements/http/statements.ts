import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import type { Statements } from '../commands.js';
import { ENVIRONMENTS, type Environment, type Owner } from '#packages/core/owner.js';
import { STATEMENT_CATEGORIES } from '../statement.js';
import type { StatementDownloadLinks, StatementFormat } from '../download-links.js';
import type { StatementInput } from '../commands.js';
import type { StatementLanguage } from '../document.js';
import type { StatementObject } from '../events.js';
import type { StatementCategory } from '../statement.js';
import { csvReply } from '#packages/http/csv.js';
import { Readable } from 'node:stream';
import { Reply } from '#packages/http/context.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { findStatement, listStatements, STATEMENT_CSV_COLUMNS, statementRecords } from '../read/index.js';
import { currencySchema, cursorListSchema, cursorQuery, found, idParams, resourceSchema } from '#packages/http/route-kit.js';
import { merchantOwnerOf, merchantParams, operatorOf } from '#packages/families/operators/http/index.js';
import { statementErrors } from '../errors.js';

const statementsRead: RouteAuth = { scope: 'statements.read', environmentHeader: 'optional' };
const statementsWrite: RouteAuth = { scope: 'statements.write', environmentHeader: 'optional' };
/** The finance team's (and admins'): a merchant's statements, made and read on its behalf. */
const operatorStatements: RouteAuth = { scope: 'operator.statements', operator: ['finance'] };

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
  closing: balances("The balances at `period_end`: equal to `opening` plus every line, and to GET /api/v1/balance `as_of` the period's last second"),
  csv_url: { type: 'string', description: 'The statement as CSV: its header lines, then each entry with its category and balance transaction' },
  created: { type: 'integer' },
  ready_at: { type: ['integer', 'null'], description: 'When its figures were computed (Unix seconds); null while pending' },
  livemode: { type: 'boolean' },
});

const day = (what: string) => ({ type: 'string', format: 'date', description: what });

const langSchema = { enum: ['en', 'fr'], description: 'The language of the document', 'x-enumDescriptions': { en: 'English (the default)', fr: 'French' } };
const statementInputProperties = {
  currency: currencySchema,
  from: day('The first day of the period (UTC), `YYYY-MM-DD`; with `to`'),
  to: day('The last day of the period (UTC), `YYYY-MM-DD`, included; a day that has ended, at most 365 days after `from`'),
};

const downloadLinkBody = {
  type: 'object',
  required: ['format'],
  additionalProperties: false,
  properties: {
    format: { enum: ['csv', 'pdf'], description: 'Which file the link gives', 'x-enumDescriptions': { csv: 'The statement as CSV, every entry with its balance transaction', pdf: 'The statement as a PDF' } },
    lang: { ...langSchema, description: 'The language of the PDF (`en` by default); a CSV has none' },
  },
};
const downloadLinkSchema = {
  type: 'object',
  required: ['object', 'statement', 'format', 'url', 'expires_at'],
  properties: {
    object: { const: 'statement_download_link', description: 'The kind of object' },
    statement: { type: 'string', description: 'The statement (`stmt_…`)' },
    format: { enum: ['csv', 'pdf'], description: 'Which file the link gives', 'x-enumDescriptions': { csv: 'CSV', pdf: 'PDF' } },
    url: { type: 'string', description: 'The path of the file on this service (`/api/v1/statement-files/…`): anyone holding it downloads the file, with no credential, until `expires_at`' },
    expires_at: { type: 'integer', description: 'When the link stops working (Unix seconds): a day after it was made' },
  },
};

/** A ready statement, or 409 IKW-RES-002 while it is being computed. */
function ready(statement: StatementObject): StatementObject {
  if (statement.status !== 'ready') throw new ApiError('IKW-RES-002', 'The statement is still being computed: wait for `statement.ready`', 'id');
  return statement;
}

/** A ready statement's file, as its routes and its download links answer it. */
async function statementFile(knex: Knex, statements: Statements, owner: Owner, statement: StatementObject, format: StatementFormat, lang: StatementLanguage, category?: StatementCategory): Promise<unknown> {
  if (format === 'csv') return csvReply(STATEMENT_CSV_COLUMNS, statementRecords(knex, owner, ready(statement), category), `${statement.id}.csv`);
  const merchant = await findMerchant(knex, owner.merchantId);
  const pdf = await statements.pdf(ready(statement), merchant?.name ?? owner.merchantId, lang);
  return Reply.stream(Readable.from(pdf), 'application/pdf', { 'Content-Disposition': `attachment; filename="${statement.id}.pdf"` });
}

/** A link to a ready statement's file that works a day with no credential. */
function downloadLink(links: StatementDownloadLinks, owner: Owner, statement: StatementObject, body: { format: StatementFormat; lang?: StatementLanguage }) {
  const { token, expiresAt } = links.issue({ ...owner, statementId: ready(statement).id, format: body.format, lang: body.lang ?? 'en' });
  return { object: 'statement_download_link', statement: statement.id, format: body.format, url: `/api/v1/statement-files/${token}`, expires_at: expiresAt };
}

/** /api/v1/statements (docs/statements.md): a merchant's statements per currency and period, as JSON and CSV. */
export function statementsRoutes(knex: Knex, statements: Statements, links: StatementDownloadLinks): RouteGroup {
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
          properties: statementInputProperties,
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
        summary: 'Download a statement as CSV: its header lines, then every entry of the period with its category and balance transaction',
        description: [
          'The statement as CSV (docs/statements.md): a `row` of `opening`, one `line` per category and `closing`, then one `entry` row per movement of the period, oldest first, with its category, its balance transaction, the ledger entry, its kind and source, and what it moved on each balance. The `entry` rows of a category add up to its `line`.',
          '',
          "`category` gives that line's entries alone (each line's `url`). A statement still `pending` is `409 IKW-RES-002`; another merchant's, or none, is `404 IKW-RES-001`.",
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
        handler: async (ctx) => statementFile(knex, statements, ctx.owner, await found('statement', ctx.params.id, findStatement(knex, ctx.owner, ctx.params.id)), 'csv', 'en', ctx.query.category),
      }),
      route<unknown, { lang?: StatementLanguage }, { id: string }>({
        method: 'get',
        path: '/api/v1/statements/:id/pdf',
        summary: "Download a statement as a PDF, in English or French, with the merchant's name and Sika's",
        description:
          "The statement as a PDF (`Content-Disposition: attachment`) to file or send to an accountant: the period, the opening balances, each line with its number of entries, and the closing balances, in `lang` (`en` by default, or `fr`). The entries themselves are in the CSV. A statement still `pending` is `409 IKW-RES-002`; another merchant's, or none, is `404 IKW-RES-001`.",
        auth: statementsRead,
        params: idParams,
        query: { type: 'object', additionalProperties: false, properties: { lang: langSchema } },
        refusals: ['IKW-RES-002'],
        answers: { file: 'application/pdf' },
        handler: async (ctx) => statementFile(knex, statements, ctx.owner, await found('statement', ctx.params.id, findStatement(knex, ctx.owner, ctx.params.id)), 'pdf', ctx.query.lang ?? 'en'),
      }),
      route<{ format: StatementFormat; lang?: StatementLanguage }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/statements/:id/download_link',
        summary: "Make a link to a statement's CSV or PDF that works for a day without a credential",
        description:
          "A link to hand to an accountant or open in a browser: `url` gives the file with no API key until `expires_at`, a day from now. Nothing is stored: a link cannot be withdrawn, only left to expire. A statement still `pending` is `409 IKW-RES-002`; another merchant's, or none, is `404 IKW-RES-001`.",
        auth: statementsRead,
        params: idParams,
        body: downloadLinkBody,
        response: downloadLinkSchema,
        refusals: ['IKW-RES-002'],
        handler: async (ctx) => downloadLink(links, ctx.owner, await found('statement', ctx.params.id, findStatement(knex, ctx.owner, ctx.params.id)), ctx.body),
      }),
      route<unknown, unknown, { token: string }>({
        method: 'get',
        path: '/api/v1/statement-files/:token',
        summary: "Download a statement's file through a download link",
        description: 'The file a download link names (`POST /api/v1/statements/{id}/download_link`), with no credential. A link that has expired (a day), was altered, or names no statement is `404 IKW-STM-001`.',
        auth: 'public',
        params: { type: 'object', required: ['token'], properties: { token: { type: 'string', minLength: 1, maxLength: 2048, description: "The link's token, as `url` gives it" } } },
        refusals: ['IKW-STM-001'],
        answers: { file: 'application/pdf', csv: STATEMENT_CSV_COLUMNS },
        handler: async (ctx) => {
          const download = links.read(ctx.params.token);
          if (!download) throw new ApiError('IKW-STM-001', statementErrors['IKW-STM-001'].message);
          const owner = { merchantId: download.merchantId, environment: download.environment };
          const statement = await findStatement(knex, owner, download.statementId);
          if (!statement) throw new ApiError('IKW-STM-001', statementErrors['IKW-STM-001'].message);
          return statementFile(knex, statements, owner, statement, download.format, download.lang);
        },
      }),
    ],
  };
}

const environmentSchema = { enum: [...ENVIRONMENTS], description: 'The environment: `live` (default) or `sandbox`', 'x-enumDescriptions': { live: "Live: the merchant's real money", sandbox: "The sandbox: the merchant's test money" } };
const merchantStatementParams = { type: 'object', required: ['merchantId', 'id'], properties: { ...merchantParams.properties, id: { type: 'string', minLength: 1, maxLength: 255, description: 'The statement (`stmt_…`)' } } };

/**
 * The finance team's statements of any merchant (docs/statements.md, "The operator's"): the same
 * statements as the merchant's own, made on its behalf (the operator is their actor), which the
 * merchant then also lists; files through download links.
 */
export function operatorStatementsRoutes(knex: Knex, statements: Statements, links: StatementDownloadLinks): RouteGroup {
  const base = '/api/v1/operator/merchants/:merchantId/statements';
  const actorOf = (ctx: Parameters<typeof operatorOf>[0]) => ({ actor: `operator:${operatorOf(ctx).operatorId}` });
  return {
    name: 'operator statements',
    description: "The finance team's statements of any merchant: made on its behalf, read, and downloaded through links.",
    routes: [
      route<StatementInput & { environment?: Environment }, unknown, { merchantId: string }>({
        method: 'post',
        path: base,
        summary: "Make a statement of a merchant's, as the merchant would (finance and admins)",
        description:
          "The statement `POST /api/v1/statements` makes, of the merchant and `environment` (`live` by default), with you as its actor; the merchant sees it among its own. An unknown merchant is `404 IKW-RES-001`; the period's refusals are those of `POST /api/v1/statements`.",
        auth: operatorStatements,
        params: merchantParams,
        body: { type: 'object', required: ['currency'], additionalProperties: false, properties: { ...statementInputProperties, environment: environmentSchema } },
        response: statementSchema,
        emits: ['statement.ready'],
        handler: async (ctx) => {
          const { environment, ...input } = ctx.body;
          return statements.request(await merchantOwnerOf(knex, ctx.params.merchantId, environment), input, actorOf(ctx), ctx.requestRef);
        },
      }),
      route<unknown, CursorQuery & { currency?: string; environment?: Environment }, { merchantId: string }>({
        method: 'get',
        path: base,
        summary: "List a merchant's statements, newest first (finance and admins)",
        description: "The merchant's statements of `environment` (`live` by default), its own and those made for it, newest first, cursor-paged. An unknown merchant is `404 IKW-RES-001`.",
        auth: { ...operatorStatements, scope: 'operator.statements.read' },
        params: merchantParams,
        query: cursorQuery({ currency: { ...currencySchema, description: 'Only the statements of this currency' }, environment: environmentSchema }),
        response: cursorListSchema(statementSchema),
        handler: async (ctx) => {
          const owner = await merchantOwnerOf(knex, ctx.params.merchantId, ctx.query.environment);
          return listStatements(knex, owner, ctx.query, `/api/v1/operator/merchants/${owner.merchantId}/statements`, { currency: ctx.query.currency?.toLowerCase() });
        },
      }),
      route<{ format: StatementFormat; lang?: StatementLanguage; environment?: Environment }, unknown, { merchantId: string; id: string }>({
        method: 'post',
        path: `${base}/:id/download_link`,
        summary: "Make a download link to a merchant's statement (finance and admins)",
        description:
          'The link `POST /api/v1/statements/{id}/download_link` makes, for a statement of the merchant in `environment` (`live` by default). A statement still `pending` is `409 IKW-RES-002`; an unknown merchant or statement is `404 IKW-RES-001`.',
        auth: operatorStatements,
        params: merchantStatementParams,
        body: { ...downloadLinkBody, properties: { ...downloadLinkBody.properties, environment: environmentSchema } },
        response: downloadLinkSchema,
        refusals: ['IKW-RES-002'],
        handler: async (ctx) => {
          const owner = await merchantOwnerOf(knex, ctx.params.merchantId, ctx.body.environment);
          return downloadLink(links, owner, await found('statement', ctx.params.id, findStatement(knex, owner, ctx.params.id)), ctx.body);
        },
      }),
    ],
  };
}
