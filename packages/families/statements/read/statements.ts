import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { Owner } from '#packages/core/owner.js';
import type { StatementEvent, StatementObject } from '../events.js';
import { linesOf, totalOf, type StatementCategory } from '../statement.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import { balanceMovements } from '#packages/families/ledger/read/index.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';

/** read.statements: merchants' statements as their latest event left them. */
export const statementsProjection: Projection = {
  name: 'statements',
  tables: ['read.statements'],
  migrations: [
    {
      name: 'statements/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.statements', ['currency text NOT NULL', 'period_start timestamptz NOT NULL', 'period_end timestamptz NOT NULL'])};
        CREATE INDEX statements_list ON read.statements (merchant_id, environment, seq)`),
    },
  ],
  handles: ['statement.requested', 'statement.ready'],
  ...rowChangeProjection({ 'read.statements': ['id'] }, (event) => {
    const e = event as unknown as StatementEvent;
    const created = e.type === 'statement.requested' ? { merchant_id: e.data.merchantId, environment: e.data.environment, currency: e.data.currency, period_start: e.data.periodStart, period_end: e.data.periodEnd } : null;
    return [snapshotChange('read.statements', event, e.data.object, created)];
  }),
};

const STATEMENT_KEYS: readonly (keyof StatementObject)[] = ['id', 'object', 'status', 'currency', 'period_start', 'period_end', 'opening', 'lines', 'closing', 'csv_url', 'created', 'ready_at', 'livemode'];
const renderStatement = (stored: StatementObject) => orderKeys(stored, STATEMENT_KEYS);

/** This owner's statement; another merchant's is not found. */
export function findStatement(knex: Knex, owner: Owner, id: string): Promise<StatementObject | undefined> {
  return findOwnedObject(knex, 'read.statements', owner, id, renderStatement);
}

/** This owner's statements, newest first, cursor-paged, by currency. */
export function listStatements(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { currency?: string }): Promise<CursorList<StatementObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.statements', owner, filters), cursor, url, renderStatement);
}

/** The columns of a statement's CSV, in order (docs/statements.md). */
export const STATEMENT_CSV_COLUMNS = ['row', 'category', 'balance_transaction', 'entry', 'kind', 'source', 'posted_at', 'available', 'pending', 'reserved', 'total'] as const;
type CsvRecord = Record<(typeof STATEMENT_CSV_COLUMNS)[number], string | number>;

/**
 * A ready statement as CSV records: its header lines (`opening`, each category's `line`,
 * `closing`, from the statement), then one `entry` record per line an entry of the ledger made in
 * the period, with its balance transaction, streamed oldest first. With `category`, that line's entries alone.
 */
export async function* statementRecords(knex: Knex, owner: Owner, statement: StatementObject, category?: StatementCategory): AsyncGenerator<CsvRecord> {
  const summary = (row: string, cat: string, b: { available: number; pending: number; reserved: number; total: number }): CsvRecord => ({
    row,
    category: cat,
    balance_transaction: '',
    entry: '',
    kind: '',
    source: '',
    posted_at: '',
    available: b.available,
    pending: b.pending,
    reserved: b.reserved,
    total: b.total,
  });
  if (category === undefined) {
    if (statement.opening) yield summary('opening', '', statement.opening);
    for (const line of statement.lines) yield summary('line', line.category, line);
    if (statement.closing) yield summary('closing', '', statement.closing);
  }
  const start = new Date(statement.period_start * 1000);
  const end = new Date(statement.period_end * 1000);
  for await (const m of balanceMovements(knex, owner, statement.currency, start, end)) {
    for (const line of linesOf(m)) {
      if (category !== undefined && line.category !== category) continue;
      yield {
        row: 'entry',
        category: line.category,
        balance_transaction: m.balanceTransaction ?? '',
        entry: m.entryId,
        kind: m.kind,
        source: m.source,
        posted_at: m.postedAt.toISOString(),
        ...line.moved,
        total: totalOf(line.moved),
      };
    }
  }
}
