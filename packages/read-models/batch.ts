import type { Knex } from 'knex';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import type { Projection } from './projection.js';

/**
 * Set-based writes for projections (`Projection.applyBatch`): many events' rows in a few
 * statements that leave the rows one statement per event would. Rows travel as one JSON array read
 * by `json_populate_recordset` with the table's own row type, so no column types are listed here;
 * json columns take the values themselves (their text is kept as JSON.stringify wrote it), not
 * strings. Tables are `??` bindings, so a shadow rebuild renames them (packages/read-models/verify.ts).
 */
export type Row = Record<string, unknown>;

/** A change to the row of a table's key: what per-event code does with one statement. */
export type RowChange =
  /** INSERT … ON CONFLICT (key) DO NOTHING. */
  | { table: string; insert: Row }
  /** UPDATE … SET `set` WHERE key = `key` (nothing when there is no such row). */
  | { table: string; key: Row; set: Row }
  /** DELETE … WHERE key = `key`. */
  | { table: string; key: Row; delete: true };

const list = (names: readonly string[]) => names.map(() => '??').join(', ');

/**
 * Rows grouped by the columns they set, each group with its columns: one statement per group, since
 * a column a row leaves out must take the table's default, not the NULL a wider statement would give
 * it (a merchant created without a live activation beside one created and activated).
 */
function byColumns(rows: readonly Row[]): [string[], Row[]][] {
  const groups = new Map<string, [string[], Row[]]>();
  // Rows made by the same code list their keys in the same order: sorted once per order met.
  const sortedByListed = new Map<string, [string, string[]]>();
  for (const row of rows) {
    const keys = Object.keys(row);
    const listed = keys.join(',');
    let sorted = sortedByListed.get(listed);
    if (!sorted) {
      const columns = keys.sort();
      sortedByListed.set(listed, (sorted = [columns.join(','), columns]));
    }
    let group = groups.get(sorted[0]);
    if (!group) groups.set(sorted[0], (group = [sorted[1], []]));
    group[1].push(row);
  }
  return [...groups.values()];
}

/** `SELECT cols FROM json_populate_recordset(table's row type, rows)` and its bindings. */
function recordset(table: string, rows: readonly Row[], columns: readonly string[]): [string, string[]] {
  return [`SELECT ${list(columns)} FROM json_populate_recordset(NULL::??, ?::json)`, [...columns, table, JSON.stringify(rows)]];
}

/** INSERT … ON CONFLICT (key) DO NOTHING of many rows in one statement (the first row of a key wins, as row-by-row inserts leave it). */
export async function insertRows(trx: Knex.Transaction, table: string, key: readonly string[], rows: readonly Row[]): Promise<void> {
  // The first row of each key, before grouping: the groups' statements run in another order.
  const first = new Map<string, Row>();
  for (const row of rows) {
    const id = JSON.stringify(key.map((k) => row[k]));
    if (!first.has(id)) first.set(id, row);
  }
  for (const [columns, group] of byColumns([...first.values()])) {
    const [select, bindings] = recordset(table, group, columns);
    await trx.raw(`INSERT INTO ?? (${list(columns)}) ${select} ON CONFLICT (${list(key)}) DO NOTHING`, [table, ...columns, ...bindings, ...key]);
  }
}

/**
 * Adds each row's `amounts` to the row of its key, inserting the row when there is none, in one
 * statement: the sums per key are what one upsert per row would add, in any order.
 */
export async function addToRows(trx: Knex.Transaction, table: string, key: readonly string[], amounts: readonly string[], rows: readonly Row[]): Promise<void> {
  const sums = new Map<string, Row>();
  for (const row of rows) {
    const id = JSON.stringify(key.map((k) => row[k]));
    const sum = sums.get(id);
    if (!sum) sums.set(id, { ...row });
    else for (const a of amounts) sum[a] = Number(sum[a]) + Number(row[a]);
  }
  for (const [columns, group] of byColumns([...sums.values()])) {
    const [select, bindings] = recordset(table, group, columns);
    await trx.raw(`INSERT INTO ?? AS t (${list(columns)}) ${select} ON CONFLICT (${list(key)}) DO UPDATE SET ${amounts.map(() => '?? = t.?? + excluded.??').join(', ')}`, [
      table,
      ...columns,
      ...bindings,
      ...key,
      ...amounts.flatMap((a) => [a, a, a]),
    ]);
  }
}

/** What a key's changes, in order, leave. */
interface Folded {
  key: Row;
  /** Deleted before anything below: the row is then known to be absent. */
  deleted: boolean;
  /** The row inserted (first insert while the row may be absent, with the updates after it). */
  inserted: Row | null;
  /** The updates of a row that was there before the batch (and not deleted). */
  set: Row;
}

/**
 * Applies a table's changes, in order, in at most two statements, leaving the rows that one
 * statement per change would. Keys are the table's primary key (every change names all of it).
 * Folded per key: an update before the first insert of a row that was not there does nothing, so
 * the inserted row carries only the updates after it; a row that was there ignores the inserts and
 * takes every update. The insert and the updates run as one statement, whose UPDATE sees only the
 * rows that were there before it, which is what tells the two cases apart.
 */
export async function applyRowChanges(trx: Knex.Transaction, table: string, key: readonly string[], changes: readonly RowChange[]): Promise<void> {
  const byKey = new Map<string, Folded>();
  for (const change of changes) {
    const keyRow = 'insert' in change ? Object.fromEntries(key.map((k) => [k, change.insert[k]])) : change.key;
    const id = key.length === 1 ? String(keyRow[key[0]!]) : JSON.stringify(key.map((k) => keyRow[k]));
    let f = byKey.get(id);
    if (!f) byKey.set(id, (f = { key: keyRow, deleted: false, inserted: null, set: {} }));
    if ('insert' in change) f.inserted ??= { ...change.insert };
    else if ('delete' in change) Object.assign(f, { deleted: true, inserted: null, set: {} });
    else {
      if (!f.deleted) Object.assign(f.set, change.set);
      if (f.inserted) Object.assign(f.inserted, change.set);
    }
  }
  const folded = [...byKey.values()];
  const deleted = folded.filter((f) => f.deleted).map((f) => f.key);
  if (deleted.length > 0) {
    const [select, bindings] = recordset(table, deleted, key);
    await trx.raw(`DELETE FROM ?? WHERE (${list(key)}) IN (${select})`, [table, ...key, ...bindings]);
  }
  const parts: [string, string[]][] = [];
  for (const [columns, rows] of byColumns(folded.flatMap((f) => (f.inserted ? [f.inserted] : [])))) {
    const [select, bindings] = recordset(table, rows, columns);
    parts.push([`INSERT INTO ?? (${list(columns)}) ${select} ON CONFLICT (${list(key)}) DO NOTHING`, [table, ...columns, ...bindings, ...key]]);
  }
  // One UPDATE per set of columns updated, since a column left out must keep its value.
  const updates = new Map<string, Row[]>();
  for (const f of folded) {
    const columns = Object.keys(f.set).sort();
    if (columns.length === 0) continue;
    const signature = JSON.stringify(columns);
    const rows = updates.get(signature) ?? [];
    rows.push({ ...f.set, ...f.key });
    updates.set(signature, rows);
  }
  for (const [signature, rows] of updates) {
    const columns = JSON.parse(signature) as string[];
    const [select, bindings] = recordset(table, rows, [...key, ...columns]);
    parts.push([
      `UPDATE ?? AS t SET ${columns.map(() => '?? = v.??').join(', ')} FROM (${select}) AS v WHERE ${key.map(() => 't.?? = v.??').join(' AND ')}`,
      [table, ...columns.flatMap((c) => [c, c]), ...bindings, ...key.flatMap((k) => [k, k])],
    ]);
  }
  if (parts.length === 0) return;
  const [last, lastBindings] = parts[parts.length - 1]!;
  const ctes = parts.slice(0, -1);
  await trx.raw(`${ctes.length > 0 ? `WITH ${ctes.map(([sql], i) => `change_${i} AS (${sql})`).join(', ')} ` : ''}${last}`, [...ctes.flatMap(([, b]) => b), ...lastBindings]);
}

/** Each table of a read model with its primary key. */
export type TableKeys = Readonly<Record<string, readonly string[]>>;

/**
 * `apply` and `applyBatch` of a read model whose every write is a row change: both run the same
 * `changesOf`, so the batch is the per-event fold by construction; a batch's changes are applied
 * table by table (no change reads another table).
 */
export function rowChangeProjection(keys: TableKeys, changesOf: (event: RecordedEvent) => RowChange[]): Pick<Projection, 'apply' | 'applyBatch'> {
  const applyAll = async (trx: Knex.Transaction, changes: RowChange[]) => {
    const byTable = new Map<string, RowChange[]>();
    for (const c of changes) {
      const forTable = byTable.get(c.table) ?? [];
      forTable.push(c);
      byTable.set(c.table, forTable);
    }
    for (const [table, forTable] of byTable) {
      const key = keys[table];
      if (!key) throw new Error(`No primary key declared for ${table}`);
      await applyRowChanges(trx, table, key, forTable);
    }
  };
  return {
    apply: (trx, event) => applyAll(trx, changesOf(event)),
    applyBatch: (trx, events) => applyAll(trx, events.flatMap(changesOf)),
  };
}
