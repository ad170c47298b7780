import type { Knex } from 'knex';
import { MERCHANT_ACCOUNTS, type LedgerEvent, type MerchantAccount } from '../events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { everyRowBySeq, ownedRows } from '#packages/read-models/queries.js';
import type { Environment, Owner } from '#packages/core/owner.js';
import { railClearing } from '#packages/ledger/clearing.js';

const RAIL_CLEARING_PREFIX = railClearing('');

/**
 * read.ledger_entries: every journal entry of the merchants' balances with what it moved on each
 * of their accounts, and when. Balances at a past moment and the daily summaries are sums over it
 * (docs/reconciliation.md); the reporting views read it.
 */
export const ledgerEntriesProjection: Projection = {
  name: 'ledger_entries',
  tables: ['read.ledger_entries'],
  migrations: [
    {
      name: 'ledger_entries/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.ledger_entries (
          entry_id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          currency text NOT NULL,
          kind text NOT NULL,
          source text NOT NULL,
          amount bigint NOT NULL,
          fee bigint NOT NULL,
          net bigint NOT NULL,
          available bigint NOT NULL,
          pending bigint NOT NULL,
          reserved bigint NOT NULL,
          posted_at timestamptz NOT NULL
        );
        CREATE INDEX ledger_entries_balance ON read.ledger_entries (merchant_id, environment, currency, posted_at)`),
    },
    {
      // What the entry moved in or out of escrow accounts (docs/escrow.md); no entry before escrow had any.
      name: 'ledger_entries/002-escrowed',
      up: (knex) => knex.raw('ALTER TABLE read.ledger_entries ADD COLUMN escrowed bigint NOT NULL DEFAULT 0'),
    },
    {
      // GET /api/v1/balance sums the escrow entries on every call: without this index that read
      // walks every entry the merchant ever posted, with it only the escrow ones.
      name: 'ledger_entries/003-escrow-index',
      up: (knex) => knex.raw(`CREATE INDEX ledger_entries_escrow ON read.ledger_entries (merchant_id, environment, currency, posted_at) INCLUDE (escrowed) WHERE kind LIKE 'escrow%'`),
    },
    {
      // The rail whose wallet the entry moved money in or out of, and by how much (a rail's
      // statement, docs/reconciliation.md): entries before this migration have none until
      // `projections rebuild ledger_entries`.
      name: 'ledger_entries/004-rail',
      up: (knex) =>
        knex.raw(`ALTER TABLE read.ledger_entries ADD COLUMN rail text, ADD COLUMN rail_moved bigint NOT NULL DEFAULT 0;
        CREATE INDEX ledger_entries_rail ON read.ledger_entries (environment, rail, currency, posted_at) INCLUDE (rail_moved) WHERE rail IS NOT NULL`),
    },
  ],
  handles: ['ledger.entry_posted'],
  ...rowChangeProjection({ 'read.ledger_entries': ['entry_id'] }, (event) => {
    const e = (event as unknown as LedgerEvent).data;
    const moved: Record<MerchantAccount, number> = { available: 0, pending: 0, reserved: 0 };
    for (const line of e.lines) {
      if ((MERCHANT_ACCOUNTS as readonly string[]).includes(line.account)) moved[line.account as MerchantAccount] += line.amount;
    }
    const escrowed = e.lines.filter((l) => l.account.startsWith('escrow:')).reduce((sum, l) => sum + l.amount, 0);
    // A rail's wallet holds the opposite of its clearing account: money in debits the clearing account.
    const railLines = e.lines.filter((l) => l.account.startsWith(RAIL_CLEARING_PREFIX));
    const rail = railLines[0]?.account.slice(RAIL_CLEARING_PREFIX.length) ?? null;
    const insert = {
      entry_id: e.entryId,
      seq: event.position,
      merchant_id: e.merchantId,
      environment: e.environment,
      currency: e.currency,
      kind: e.kind,
      source: e.source,
      amount: e.amount,
      fee: e.fee,
      net: e.net,
      ...moved,
      escrowed,
      rail,
      rail_moved: -railLines.reduce((sum, l) => sum + l.amount, 0),
      posted_at: e.postedAt,
    };
    return [{ table: 'read.ledger_entries', insert }];
  }),
};

export interface BalanceAt {
  currency: string;
  available: number;
  pending: number;
  reserved: number;
}

/** The owner's balances per currency once every entry posted up to `at` (inclusive) was applied. */
export async function balancesAt(knex: Knex, owner: Owner, at: Date): Promise<BalanceAt[]> {
  const rows = await ownedRows(knex, 'read.ledger_entries', owner)
    .where('posted_at', '<=', at)
    .groupBy('currency')
    .orderBy('currency')
    .select<{ currency: string; available: string; pending: string; reserved: string }[]>(
      'currency',
      knex.raw('sum(available)::bigint AS available'),
      knex.raw('sum(pending)::bigint AS pending'),
      knex.raw('sum(reserved)::bigint AS reserved'),
    );
  return rows.map((r) => ({ currency: r.currency, available: Number(r.available), pending: Number(r.pending), reserved: Number(r.reserved) }));
}

/**
 * What the owner's escrow contracts held per currency (each currency with escrow entries), now or
 * as the ledger stood at `at`: GET /api/v1/balance `escrowed`.
 */
export async function escrowedAt(knex: Knex, owner: Owner, at?: Date): Promise<{ currency: string; amount: number }[]> {
  // The predicate as literal text, the same as the partial index ledger_entries_escrow's.
  const entries = ownedRows(knex, 'read.ledger_entries', owner).whereRaw(`kind LIKE 'escrow%'`);
  if (at) entries.where('posted_at', '<=', at);
  const rows = await entries.groupBy('currency').orderBy('currency').select<{ currency: string; escrowed: string }[]>('currency', knex.raw('sum(escrowed)::bigint AS escrowed'));
  return rows.map((r) => ({ currency: r.currency, amount: Number(r.escrowed) }));
}

/** One day of one currency's balance (available + pending + reserved): opening + in − out − fees = closing. */
export interface DailySummary {
  date: string;
  currency: string;
  opening: number;
  /** Payments received, gross. */
  in: number;
  /** Payouts paid out and refunds, without their fees. */
  out: number;
  /** Fees on payments and on payouts paid. */
  fees: number;
  closing: number;
}

const DAY_MS = 86_400_000;

/**
 * The owner's daily summaries from `from` to `to` (UTC dates, inclusive) for every currency that has
 * entries by then. A payout counts when it is paid: while it is held its funds are still the merchant's (reserved).
 */
export async function dailySummaries(knex: Knex, owner: Owner, from: Date, to: Date): Promise<DailySummary[]> {
  const end = new Date(to.getTime() + DAY_MS);
  const openings = await ownedRows(knex, 'read.ledger_entries', owner)
    .where('posted_at', '<', from)
    .groupBy('currency')
    .select<{ currency: string; total: string }[]>('currency', knex.raw('sum(available + pending + reserved)::bigint AS total'));
  const moves = await ownedRows(knex, 'read.ledger_entries', owner).where('posted_at', '>=', from).where('posted_at', '<', end).groupBy('currency', 'day').select<{ currency: string; day: string; in: string; out: string; fees: string }[]>(
    'currency',
    knex.raw(`to_char(posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`),
    // Escrow entries count by what they moved in or out of the merchant's own accounts (docs/escrow.md);
    // a funding campaign's release comes in like a payment: its gross, and the contributions' fees.
    knex.raw(`sum(CASE WHEN kind IN ('payment', 'campaign_release') THEN amount WHEN kind LIKE 'escrow%' THEN greatest(available + pending + reserved, 0) ELSE 0 END)::bigint AS in`),
    knex.raw(`sum(CASE WHEN kind IN ('payout_paid', 'refund', 'refund_reversal') THEN -amount WHEN kind LIKE 'escrow%' THEN greatest(-(available + pending + reserved), 0) ELSE 0 END)::bigint AS out`),
    knex.raw(`sum(CASE WHEN kind IN ('payment', 'payout_paid', 'campaign_release') THEN fee ELSE 0 END)::bigint AS fees`),
  );
  const balance = new Map(openings.map((o) => [o.currency, Number(o.total)]));
  for (const m of moves) if (!balance.has(m.currency)) balance.set(m.currency, 0);
  const byDay = new Map(moves.map((m) => [`${m.currency} ${m.day}`, m]));
  const out: DailySummary[] = [];
  for (const currency of [...balance.keys()].sort()) {
    let closing = balance.get(currency)!;
    for (let t = from.getTime(); t < end.getTime(); t += DAY_MS) {
      const date = new Date(t).toISOString().slice(0, 10);
      const m = byDay.get(`${currency} ${date}`);
      const day = { in: Number(m?.in ?? 0), out: Number(m?.out ?? 0), fees: Number(m?.fees ?? 0) };
      const opening = closing;
      closing = opening + day.in - day.out - day.fees;
      out.push({ date, currency, opening, ...day, closing });
    }
  }
  return out;
}

/** One entry of a merchant's balance as a statement reads it: what it moved on each account, and the balance transaction it belongs to. */
export interface BalanceMovement {
  seq: string;
  entryId: string;
  kind: string;
  source: string;
  amount: number;
  fee: number;
  available: number;
  pending: number;
  reserved: number;
  postedAt: Date;
  /**
   * Its own balance transaction, or (a settlement, a payout paid, a batch's hold) the first of its
   * source's: the row the merchant reconciles it by; null when its source has none.
   */
  balanceTransaction: string | null;
}

/**
 * Every entry of the owner's balance in `currency` posted in [from, to) that moved the merchant's
 * own accounts, oldest first, streamed (everyRowBySeq): a statement's lines (docs/statements.md).
 */
export async function* balanceMovements(knex: Knex, owner: Owner, currency: string, from: Date, to: Date): AsyncGenerator<BalanceMovement> {
  const query = knex('read.ledger_entries AS e')
    .where({ 'e.merchant_id': owner.merchantId, 'e.environment': owner.environment, 'e.currency': currency })
    .where('e.posted_at', '>=', from)
    .where('e.posted_at', '<', to)
    .where((q) => {
      q.whereNot('e.available', 0).orWhereNot('e.pending', 0).orWhereNot('e.reserved', 0);
    })
    .select(
      'e.seq',
      'e.entry_id',
      'e.kind',
      'e.source',
      'e.amount',
      'e.fee',
      'e.available',
      'e.pending',
      'e.reserved',
      'e.posted_at',
      knex.raw(`COALESCE(
        (SELECT b.id FROM read.balance_transactions b WHERE b.id = e.entry_id),
        (SELECT b.id FROM read.balance_transactions b WHERE b.source = e.source AND b.merchant_id = e.merchant_id AND b.environment = e.environment ORDER BY b.seq LIMIT 1)
      ) AS balance_transaction`),
    );
  type Row = { seq: string; entry_id: string; kind: string; source: string; amount: string; fee: string; available: string; pending: string; reserved: string; posted_at: Date; balance_transaction: string | null };
  for await (const r of everyRowBySeq<Row>(query, 'asc')) {
    yield {
      seq: r.seq,
      entryId: r.entry_id,
      kind: r.kind,
      source: r.source,
      amount: Number(r.amount),
      fee: Number(r.fee),
      available: Number(r.available),
      pending: Number(r.pending),
      reserved: Number(r.reserved),
      postedAt: r.posted_at,
      balanceTransaction: r.balance_transaction,
    };
  }
}

/** The owner's balances in `currency` once every entry posted before `at` was applied (zeros before any). */
export async function balanceBefore(knex: Knex, owner: Owner, currency: string, at: Date): Promise<{ available: number; pending: number; reserved: number }> {
  const row = await ownedRows(knex, 'read.ledger_entries', owner)
    .where({ currency })
    .where('posted_at', '<', at)
    .first<{ available: string | null; pending: string | null; reserved: string | null }>(knex.raw('sum(available)::bigint AS available'), knex.raw('sum(pending)::bigint AS pending'), knex.raw('sum(reserved)::bigint AS reserved'));
  return { available: Number(row?.available ?? 0), pending: Number(row?.pending ?? 0), reserved: Number(row?.reserved ?? 0) };
}

/** A rail's holding over a period, by kind of entry: what a platform statement of the rail says (docs/reconciliation.md, "A rail's statement"). */
export interface RailStatement {
  rail: string;
  environment: Environment;
  currency: string;
  from: string;
  to: string;
  /** What the ledger expects the rail to hold at `from`. */
  opening: number;
  /** What each kind of entry moved in (+) or out (−) of the rail's wallet, and how many entries. */
  lines: { kind: string; amount: number; count: number }[];
  /** At `to`: `opening` plus every line. */
  closing: number;
}

/**
 * The statement of a rail that keeps Sika's money, over [from, to), every merchant of the
 * environment together: what the ledger expects the rail to hold at both ends and what moved it.
 */
export async function railStatement(knex: Knex, rail: string, environment: Environment, currency: string, from: Date, to: Date): Promise<RailStatement> {
  const entries = () => knex('read.ledger_entries').where({ environment, rail, currency });
  const before = await entries().where('posted_at', '<', from).first<{ total: string | null }>(knex.raw('sum(rail_moved)::bigint AS total'));
  const rows = await entries()
    .where('posted_at', '>=', from)
    .where('posted_at', '<', to)
    .whereNot('rail_moved', 0)
    .groupBy('kind')
    .orderBy('kind')
    .select<{ kind: string; amount: string; count: string }[]>('kind', knex.raw('sum(rail_moved)::bigint AS amount'), knex.raw('count(*) AS count'));
  const lines = rows.map((r) => ({ kind: r.kind, amount: Number(r.amount), count: Number(r.count) }));
  const opening = Number(before?.total ?? 0);
  return { rail, environment, currency, from: from.toISOString(), to: to.toISOString(), opening, lines, closing: opening + lines.reduce((sum, l) => sum + l.amount, 0) };
}
