import type { Knex } from 'knex';
import { MERCHANT_ACCOUNTS, type LedgerEvent, type MerchantAccount } from '../../packages/families/ledger/events.js';
import { rowChangeProjection } from '../batch.js';
import type { Projection } from '../projection.js';
import { ownedRows } from '../queries.js';
import type { Owner } from '../../packages/core/owner.js';

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
      up: (knex) =>
        knex.raw(`CREATE INDEX ledger_entries_escrow ON read.ledger_entries (merchant_id, environment, currency, posted_at) INCLUDE (escrowed) WHERE kind LIKE 'escrow%'`),
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
  const moves = await ownedRows(knex, 'read.ledger_entries', owner)
    .where('posted_at', '>=', from)
    .where('posted_at', '<', end)
    .groupBy('currency', 'day')
    .select<{ currency: string; day: string; in: string; out: string; fees: string }[]>(
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
