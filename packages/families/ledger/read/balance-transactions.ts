import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { EntryPosted, LedgerEvent } from '../events.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { applyRowChanges, insertRows, type Row, type RowChange } from '#packages/read-models/batch.js';
import { cursorPage, whereCreated, type CreatedRange, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { everyRowBySeq, ownedRows } from '#packages/read-models/queries.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * read.balance_transactions: what moved the merchant's balance, one row per payment, payout,
 * payout failure or refund. A payment's settlement and a payout's completion update the status of
 * the row they belong to rather than adding rows, as merchants reconcile by object.
 */
export const balanceTransactionsProjection: Projection = {
  name: 'balance_transactions',
  tables: ['read.balance_transactions', 'read.available_lots', 'read.payout_settlements'],
  migrations: [
    {
      name: 'balance_transactions/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.balance_transactions (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          type text NOT NULL,
          source text NOT NULL,
          amount bigint NOT NULL,
          fee bigint NOT NULL,
          net bigint NOT NULL,
          currency text NOT NULL,
          status text NOT NULL,
          available_on timestamptz NOT NULL,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX balance_transactions_list ON read.balance_transactions (merchant_id, environment, seq);
        CREATE INDEX balance_transactions_source ON read.balance_transactions (source)`),
    },
    {
      // When the row became available: its status at any past moment. Rows settled before this
      // column existed get their creation time; `sika projections rebuild balance_transactions` gives the exact one.
      name: 'balance_transactions/002-settled-at',
      up: (knex) =>
        knex.raw(`ALTER TABLE read.balance_transactions ADD COLUMN settled_at timestamptz;
          UPDATE read.balance_transactions SET settled_at = created_at WHERE status = 'available';
          CREATE INDEX balance_transactions_created ON read.balance_transactions (merchant_id, environment, created_at)`),
    },
    {
      // Payout reconciliation: which settled funds each payout drew on, first in, first out.
      name: 'balance_transactions/003-payout-settlements',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.available_lots (
            balance_transaction_id text PRIMARY KEY,
            seq text NOT NULL,
            merchant_id text NOT NULL,
            environment text NOT NULL,
            currency text NOT NULL,
            remaining bigint NOT NULL
          );
          CREATE INDEX available_lots_fifo ON read.available_lots (merchant_id, environment, currency, seq) WHERE remaining > 0;
          CREATE TABLE read.payout_settlements (
            payout_id text NOT NULL,
            balance_transaction_id text NOT NULL,
            merchant_id text NOT NULL,
            environment text NOT NULL,
            amount bigint NOT NULL,
            PRIMARY KEY (payout_id, balance_transaction_id)
          )`),
    },
  ],
  handles: ['ledger.entry_posted'],
  apply: (trx, event) => post(sqlBooks(trx, event), event),
  async applyBatch(trx, events) {
    const books = await BatchBooks.load(trx, events);
    try {
      for (const event of events) {
        books.at(event);
        await post(books, event);
      }
    } catch (err) {
      // Nothing is written before the flush: the batch may still go one event at a time.
      if (!(err instanceof NeedsOneByOne)) throw err;
      for (const event of events) await post(sqlBooks(trx, event), event);
      return;
    }
    await books.flush();
  },
};

const TRANSACTIONS = 'read.balance_transactions';
const LOTS = 'read.available_lots';
const SETTLEMENTS = 'read.payout_settlements';

interface Balance {
  merchant_id: string;
  environment: string;
  currency: string;
}

/** A payout that draws on the available funds, for its settlements. */
interface Drawer {
  payoutId: string;
  merchantId: string;
  environment: string;
}

/**
 * The writes an entry makes, as one event's statements (`sqlBooks`) or folded in memory over a
 * batch (`BatchBooks`): `post` decides them once for both.
 */
interface Books {
  /** A new balance transaction (none when its id is taken). */
  insert(row: Row): Promise<void>;
  /** Every transaction of the source and type becomes available; returns them. */
  settle(source: string, type: string, settledAt: string): Promise<{ id: string; net: string | number }[]>;
  /** Funds that became available join the queue that payouts and refunds draw on (a lot whose id is taken stays). */
  addLots(balance: Balance, lots: { id: string; net: string | number }[]): Promise<void>;
  /** Takes `total` from the balance's oldest lots; a payout records what it took from each. */
  draw(balance: Balance, total: number, drawer: Drawer | null): Promise<void>;
}

/**
 * The lots of a settlement: its net shared among the rows it settled, in their order, each taking
 * at most its own net (a source may have several payment rows; a reserve held leaves the last ones short).
 */
function settledShares(rows: { id: string; net: string | number }[], net: number): { id: string; net: number }[] {
  let left = net;
  return rows.map((r) => {
    const share = Math.max(0, Math.min(Number(r.net), left));
    left -= share;
    return { id: r.id, net: share };
  });
}

async function post(books: Books, event: RecordedEvent): Promise<void> {
  const e = (event as unknown as LedgerEvent).data;
  const row = (type: string, status: string): Row => ({
    id: e.entryId,
    seq: event.position,
    merchant_id: e.merchantId,
    environment: e.environment,
    type,
    source: e.source,
    amount: e.amount,
    fee: e.fee,
    net: e.net,
    currency: e.currency,
    status,
    available_on: e.availableOn,
    created_at: e.postedAt,
    settled_at: status === 'available' ? e.postedAt : null,
  });
  const insert = (type: string, status: string) => books.insert(row(type, status));
  const settle = (type: string) => books.settle(e.source, type, e.postedAt);
  const balance = { merchant_id: e.merchantId, environment: e.environment, currency: e.currency };
  const addLots = (rows: { id: string; net: string | number }[]) => books.addLots(balance, rows);
  const draw = (total: number, payoutId: string | null) => books.draw(balance, total, payoutId === null ? null : { payoutId, merchantId: e.merchantId, environment: e.environment });
  switch (e.kind) {
    case 'payment':
      return insert('payment', 'pending');
    case 'payment_settlement':
      // What became available is the settlement's net: the payments' less a reserve, if one was held.
      return addLots(settledShares(await settle('payment'), e.net));
    case 'reserve_hold':
      // Part of a payment held in `reserved` (docs/limits.md): pending until its release date, `available_on`.
      return insert('reserve_hold', 'pending');
    case 'reserve_release':
      // Back on the balance at its date (or with the payment's refund): the hold's row settles, the release's is new funds.
      await settle('reserve_hold');
      await insert('reserve_release', 'available');
      return addLots([{ id: e.entryId, net: e.net }]);
    case 'payout_hold':
    case 'batch_allocation':
      await insert('payout', 'pending');
      return draw(-e.net, e.source);
    case 'payout_paid':
      return void (await settle('payout'));
    case 'payout_release':
      // The payout's own row is settled too: its funds came back through the payout_failure row.
      await settle('payout');
      await insert('payout_failure', 'available');
      return addLots([{ id: e.entryId, net: e.net }]);
    case 'refund':
      await insert('refund', 'available');
      return draw(-e.net, null);
    case 'rail_refund_sent':
      // Out of the rail's refunds in flight into its clearing account: the balance paid it when the refund started.
      return;
    case 'escrow_payout_hold':
    case 'escrow_payout_release':
      // A release paid out goes from escrow to the payee, or back to escrow when the payout fails,
      // without touching the merchant's balance (docs/ledger.md): not a balance transaction, so
      // the nets keep adding up to the balance.
      return;
    case 'escrow_funding':
      // Funded from the merchant's own available balance: it leaves it. A payment into escrow never touched it.
      if (e.lines.some((l) => l.account === 'available')) {
        await insert('escrow_funding', 'available');
        await draw(-e.net, null);
      }
      return;
    case 'escrow_release':
      await insert('escrow_release', 'available');
      return addLots([{ id: e.entryId, net: e.net }]);
    case 'escrow_refund':
    case 'refund_reversal':
      // Back on the balance when it came from there: an escrow refund to a payer who funded from
      // the merchant's available balance; a refund the rail refused or failed (`refund_failure`).
      if (e.lines.some((l) => l.account === 'available')) {
        await insert(e.kind === 'escrow_refund' ? 'escrow_refund' : 'refund_failure', 'available');
        await addLots([{ id: e.entryId, net: e.net }]);
      }
      return;
    case 'campaign_release':
      // A funding campaign's funds released to the organizer: available at once, net of the contributions' fees.
      await insert('funding_release', 'available');
      return addLots([{ id: e.entryId, net: e.net }]);
    case 'campaign_contribution':
    case 'campaign_refund':
      // Held for the campaign, apart from the balance (docs/funding.md): not a balance transaction.
      return;
    case 'order_payment':
    case 'order_refund':
    case 'seller_settlement':
    case 'seller_payout_hold':
    case 'seller_payout_paid':
    case 'seller_payout_release':
      // Marketplace sellers' funds and the commission, apart from the balance (docs/marketplace.md).
      return;
    case 'batch_hold':
    case 'batch_release':
      // A batch's reservation is listed through its payouts (one row each, at allocation, drawing on
      // the oldest funds then); the hold itself shows in `reserved`.
      return;
  }
}

/** One event's books: a statement per write, reading the queue of lots as it draws. */
function sqlBooks(trx: Knex.Transaction, event: RecordedEvent): Books {
  return {
    insert: async (row) => void (await trx(TRANSACTIONS).insert(row).onConflict('id').ignore()),
    settle: (source, type, settledAt) => trx(TRANSACTIONS).where({ source, type }).update({ status: 'available', settled_at: settledAt }, ['id', 'net']),
    async addLots(balance, lots) {
      if (lots.length === 0) return;
      await trx(LOTS)
        .insert(lots.map((r) => ({ balance_transaction_id: r.id, seq: event.position, ...balance, remaining: r.net })))
        .onConflict()
        .ignore();
    },
    async draw(balance, total, drawer) {
      const lots = await trx(LOTS)
        .where(balance)
        .where('remaining', '>', 0)
        .orderBy('seq')
        .orderBy('balance_transaction_id')
        .forUpdate()
        .select<{ balance_transaction_id: string; remaining: string }[]>('balance_transaction_id', 'remaining');
      let left = total;
      for (const lot of lots) {
        if (left === 0) break;
        const taken = Math.min(left, Number(lot.remaining));
        left -= taken;
        await trx(LOTS)
          .where({ balance_transaction_id: lot.balance_transaction_id })
          .update({ remaining: Number(lot.remaining) - taken });
        if (drawer) {
          await trx(SETTLEMENTS)
            .insert({ payout_id: drawer.payoutId, balance_transaction_id: lot.balance_transaction_id, merchant_id: drawer.merchantId, environment: drawer.environment, amount: taken })
            .onConflict(['payout_id', 'balance_transaction_id'])
            .ignore();
        }
      }
    },
  };
}

/** The batch meets a case whose order only the database's collation decides: it goes one event at a time. */
class NeedsOneByOne extends Error {}

interface Transaction {
  id: string;
  source: string;
  type: string;
  net: string | number;
  /** Inserted by this batch: the whole row. */
  row: Row | null;
  settled: { status: string; settled_at: string } | null;
}

interface Lot {
  id: string;
  seq: string;
  balance: Balance;
  remaining: number;
  isNew: boolean;
  changed: boolean;
}

const balanceKey = (b: Balance) => JSON.stringify([b.merchant_id, b.environment, b.currency]);
const sourceKey = (source: string, type: string) => JSON.stringify([source, type]);

/**
 * A batch's books: first the rows its entries can touch are read (and locked, as the draws lock
 * them): the transactions of its ids and settled sources, the lots of those transactions and every
 * lot of the balances it draws on, in queue order; the entries then post in memory, in log order;
 * `flush` writes what changed in a statement per table.
 */
class BatchBooks implements Books {
  private position = '';
  private readonly settlements: Row[] = [];
  private readonly settlementKeys = new Set<string>();

  private constructor(
    private readonly trx: Knex.Transaction,
    private readonly transactions: Map<string, Transaction>,
    private readonly bySource: Map<string, string[]>,
    private readonly lots: Map<string, Lot>,
    private readonly queues: Map<string, Lot[]>,
  ) {}

  static async load(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<BatchBooks> {
    const entries = events.map((event) => (event as unknown as LedgerEvent).data);
    const ids = entries.map((e) => e.entryId);
    const sources = entries.filter((e) => SETTLING.has(e.kind)).map((e) => e.source);
    const drawn = new Map(entries.filter((e) => DRAWING.has(e.kind)).map((e) => [balanceKey(balanceOf(e)), balanceOf(e)]));
    const found = await trx.raw<{ rows: { id: string; source: string; type: string; net: string }[] }>('SELECT id, source, type, net FROM ?? WHERE id = ANY(?) OR source = ANY(?) ORDER BY id FOR UPDATE', [TRANSACTIONS, ids, sources]);
    const transactions = new Map<string, Transaction>();
    const bySource = new Map<string, string[]>();
    for (const r of found.rows) {
      transactions.set(r.id, { ...r, row: null, settled: null });
      const key = sourceKey(r.source, r.type);
      bySource.set(key, [...(bySource.get(key) ?? []), r.id]);
    }
    const balances = [...drawn.values()];
    const lotRows = await trx.raw<{ rows: { balance_transaction_id: string; seq: string; merchant_id: string; environment: string; currency: string; remaining: string }[] }>(
      `SELECT balance_transaction_id, seq, merchant_id, environment, currency, remaining FROM ??
       WHERE balance_transaction_id = ANY(?)
          OR ((merchant_id, environment, currency) IN (SELECT * FROM unnest(?::text[], ?::text[], ?::text[])) AND remaining > 0)
       ORDER BY seq, balance_transaction_id FOR UPDATE`,
      [LOTS, [...ids, ...transactions.keys()], balances.map((b) => b.merchant_id), balances.map((b) => b.environment), balances.map((b) => b.currency)],
    );
    const lots = new Map<string, Lot>();
    const queues = new Map<string, Lot[]>(balances.map((b) => [balanceKey(b), []]));
    for (const r of lotRows.rows) {
      const lot: Lot = { id: r.balance_transaction_id, seq: r.seq, balance: { merchant_id: r.merchant_id, environment: r.environment, currency: r.currency }, remaining: Number(r.remaining), isNew: false, changed: false };
      lots.set(lot.id, lot);
      queues.get(balanceKey(lot.balance))?.push(lot);
    }
    return new BatchBooks(trx, transactions, bySource, lots, queues);
  }

  /** The event being posted (new lots take its position). */
  at(event: RecordedEvent): void {
    this.position = event.position;
  }

  async insert(row: Row): Promise<void> {
    const id = row.id as string;
    if (this.transactions.has(id)) return;
    this.transactions.set(id, { id, source: row.source as string, type: row.type as string, net: row.net as number, row: { ...row }, settled: null });
    const key = sourceKey(row.source as string, row.type as string);
    this.bySource.set(key, [...(this.bySource.get(key) ?? []), id]);
  }

  async settle(source: string, type: string, settledAt: string): Promise<{ id: string; net: string | number }[]> {
    const settled = (this.bySource.get(sourceKey(source, type)) ?? []).map((id) => this.transactions.get(id)!);
    for (const t of settled) {
      const change = { status: 'available', settled_at: settledAt };
      if (t.row) Object.assign(t.row, change);
      else t.settled = change;
    }
    return settled.map((t) => ({ id: t.id, net: t.net }));
  }

  async addLots(balance: Balance, added: { id: string; net: string | number }[]): Promise<void> {
    const queue = this.queues.get(balanceKey(balance));
    for (const r of added) {
      if (this.lots.has(r.id)) continue;
      const lot: Lot = { id: r.id, seq: this.position, balance, remaining: Number(r.net), isNew: true, changed: false };
      this.lots.set(lot.id, lot);
      if (!queue) continue;
      // Positions are digits of one width, so string order is queue order; equal ones would be ordered by id in the collation.
      const at = queue.findIndex((other) => other.seq >= lot.seq);
      if (at >= 0 && queue[at]!.seq === lot.seq) throw new NeedsOneByOne();
      queue.splice(at < 0 ? queue.length : at, 0, lot);
    }
  }

  async draw(balance: Balance, total: number, drawer: Drawer | null): Promise<void> {
    let left = total;
    for (const lot of this.queues.get(balanceKey(balance))!) {
      if (lot.remaining <= 0) continue;
      if (left === 0) break;
      const taken = Math.min(left, lot.remaining);
      left -= taken;
      lot.remaining -= taken;
      lot.changed = true;
      if (!drawer) continue;
      const key = JSON.stringify([drawer.payoutId, lot.id]);
      if (this.settlementKeys.has(key)) continue;
      this.settlementKeys.add(key);
      this.settlements.push({ payout_id: drawer.payoutId, balance_transaction_id: lot.id, merchant_id: drawer.merchantId, environment: drawer.environment, amount: taken });
    }
  }

  async flush(): Promise<void> {
    const transactions: RowChange[] = [];
    for (const t of this.transactions.values()) {
      if (t.row) transactions.push({ table: TRANSACTIONS, insert: t.row });
      else if (t.settled) transactions.push({ table: TRANSACTIONS, key: { id: t.id }, set: t.settled });
    }
    const lots: RowChange[] = [];
    for (const lot of this.lots.values()) {
      if (lot.isNew) lots.push({ table: LOTS, insert: { balance_transaction_id: lot.id, seq: lot.seq, ...lot.balance, remaining: lot.remaining } });
      else if (lot.changed) lots.push({ table: LOTS, key: { balance_transaction_id: lot.id }, set: { remaining: lot.remaining } });
    }
    await applyRowChanges(this.trx, TRANSACTIONS, ['id'], transactions);
    await applyRowChanges(this.trx, LOTS, ['balance_transaction_id'], lots);
    await insertRows(this.trx, SETTLEMENTS, ['payout_id', 'balance_transaction_id'], this.settlements);
  }
}

const SETTLING: ReadonlySet<string> = new Set(['payment_settlement', 'payout_paid', 'payout_release', 'reserve_release']);
const DRAWING: ReadonlySet<string> = new Set(['payout_hold', 'batch_allocation', 'refund', 'escrow_funding']);

function balanceOf(e: EntryPosted): Balance {
  return { merchant_id: e.merchantId, environment: e.environment, currency: e.currency };
}

export interface BalanceTransactionRow {
  id: string;
  seq: string;
  type: string;
  source: string;
  amount: string;
  fee: string;
  net: string;
  currency: string;
  status: string;
  available_on: Date;
  created_at: Date;
  environment: string;
}

export function balanceTransactionObject(row: BalanceTransactionRow) {
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

const COLUMNS = ['id', 'seq', 'environment', 'type', 'source', 'amount', 'fee', 'net', 'currency', 'available_on', 'created_at'];

export interface BalanceTransactionFilters {
  type?: string;
  source?: string;
  /** Only the transactions whose funds this payout drew on (payout reconciliation). */
  payout?: string;
  created?: CreatedRange;
}

/**
 * This owner's balance transactions that match the filters. With an inclusive upper bound
 * (`created.lte`) each row has the status it had at that moment: the list is the ledger as it stood then.
 */
export function balanceTransactionRows(knex: Knex, owner: Owner, filters: BalanceTransactionFilters): Knex.QueryBuilder {
  const q = ownedRows(knex, 'read.balance_transactions', owner, { type: filters.type, source: filters.source });
  if (filters.payout !== undefined) {
    q.whereIn('id', knex('read.payout_settlements').where({ payout_id: filters.payout, merchant_id: owner.merchantId, environment: owner.environment }).select('balance_transaction_id'));
  }
  whereCreated(q, 'created_at', filters.created ?? {});
  const lte = filters.created?.lte;
  if (!lte) return q.select(...COLUMNS, 'status');
  return q.select(...COLUMNS, knex.raw(`CASE WHEN settled_at <= ? THEN 'available' ELSE 'pending' END AS status`, [lte]));
}

/** This owner's balance transactions, newest first, cursor-paged. */
export function listBalanceTransactions(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: BalanceTransactionFilters): Promise<CursorList<ReturnType<typeof balanceTransactionObject>>> {
  return cursorPage(balanceTransactionRows(knex, owner, filters), cursor, url, 'id', balanceTransactionObject);
}

/** The columns of the CSV export, in order (docs/reconciliation.md): stable names for finance tools. */
export const BALANCE_TRANSACTION_CSV_COLUMNS = ['id', 'created', 'available_on', 'type', 'source', 'status', 'currency', 'amount', 'fee', 'net'] as const;

/**
 * Every balance transaction matching the filters, oldest first, as CSV records (everyRowBySeq: an
 * export of any size holds one page in memory and no connection between pages).
 */
export async function* balanceTransactionRecords(knex: Knex, owner: Owner, filters: BalanceTransactionFilters): AsyncGenerator<Record<(typeof BALANCE_TRANSACTION_CSV_COLUMNS)[number], string | number>> {
  for await (const row of everyRowBySeq<BalanceTransactionRow>(balanceTransactionRows(knex, owner, filters), 'asc')) {
    yield {
      id: row.id,
      created: row.created_at.toISOString(),
      available_on: row.available_on.toISOString(),
      type: row.type,
      source: row.source,
      status: row.status,
      currency: row.currency,
      amount: Number(row.amount),
      fee: Number(row.fee),
      net: Number(row.net),
    };
  }
}
