import type { Knex } from 'knex';
import { unixSeconds } from '../packages/core/clock.js';
import type { Owner } from '../packages/domain/audit.js';
import type { LedgerEvent } from '../packages/domain/ledger/events.js';
import { cursorPage, type CursorList, type CursorQuery } from './paging.js';
import type { Projection } from './projection.js';
import { ownedRows } from './queries.js';

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
  async apply(trx, event) {
    const e = (event as unknown as LedgerEvent).data;
    const row = (type: string, status: string) => ({
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
    const insert = (type: string, status: string) => trx('read.balance_transactions').insert(row(type, status)).onConflict('id').ignore();
    const settle = (type: string) =>
      trx('read.balance_transactions').where({ source: e.source, type }).update({ status: 'available', settled_at: e.postedAt }, ['id', 'net']);
    const balance = { merchant_id: e.merchantId, environment: e.environment, currency: e.currency };
    // Funds that became available join the queue that payouts and refunds draw on, oldest first.
    const addLots = (rows: { id: string; net: string | number }[]) =>
      rows.length === 0 ? undefined : trx('read.available_lots').insert(rows.map((r) => ({ balance_transaction_id: r.id, seq: event.position, ...balance, remaining: r.net }))).onConflict().ignore();
    const draw = async (total: number, payoutId: string | null) => {
      const lots = await trx('read.available_lots').where(balance).where('remaining', '>', 0).orderBy('seq').orderBy('balance_transaction_id').forUpdate()
        .select<{ balance_transaction_id: string; remaining: string }[]>('balance_transaction_id', 'remaining');
      let left = total;
      for (const lot of lots) {
        if (left === 0) break;
        const taken = Math.min(left, Number(lot.remaining));
        left -= taken;
        await trx('read.available_lots').where({ balance_transaction_id: lot.balance_transaction_id }).update({ remaining: Number(lot.remaining) - taken });
        if (payoutId) {
          await trx('read.payout_settlements')
            .insert({ payout_id: payoutId, balance_transaction_id: lot.balance_transaction_id, merchant_id: e.merchantId, environment: e.environment, amount: taken })
            .onConflict(['payout_id', 'balance_transaction_id'])
            .ignore();
        }
      }
    };
    switch (e.kind) {
      case 'payment':
        return void (await insert('payment', 'pending'));
      case 'payment_settlement':
        return void (await addLots(await settle('payment')));
      case 'payout_hold':
      case 'batch_allocation':
        await insert('payout', 'pending');
        return void (await draw(-e.net, e.source));
      case 'payout_paid':
        return void (await settle('payout'));
      case 'payout_release':
        // The payout's own row is settled too: its funds came back through the payout_failure row.
        await settle('payout');
        await insert('payout_failure', 'available');
        return void (await addLots([{ id: e.entryId, net: e.net }]));
      case 'refund':
        await insert('refund', 'available');
        return void (await draw(-e.net, null));
      case 'escrow_payout_hold':
        // A release paid out: the payout's funds come from escrow, not from the available queue.
        return void (await insert('payout', 'pending'));
      case 'escrow_funding':
        // Funded from the merchant's own available balance: it leaves it. A payment into escrow never touched it.
        if (e.lines.some((l) => l.account === 'available')) {
          await insert('escrow_funding', 'available');
          await draw(-e.net, null);
        }
        return;
      case 'escrow_release':
        await insert('escrow_release', 'available');
        return void (await addLots([{ id: e.entryId, net: e.net }]));
      case 'escrow_refund':
        // Back to a payer who funded from the merchant's available balance: it returns there.
        if (e.lines.some((l) => l.account === 'available')) {
          await insert('escrow_refund', 'available');
          await addLots([{ id: e.entryId, net: e.net }]);
        }
        return;
      case 'campaign_release':
        // A funding campaign's funds released to the organizer: available at once, net of the contributions' fees.
        await insert('funding_release', 'available');
        return void (await addLots([{ id: e.entryId, net: e.net }]));
      case 'campaign_contribution':
      case 'campaign_refund':
        // Held for the campaign, apart from the balance (docs/funding.md): not a balance transaction.
        return;
      case 'batch_hold':
      case 'batch_release':
        // A batch's reservation is listed through its payouts (one row each, at allocation, drawing on
        // the oldest funds then); the hold itself shows in `reserved`.
        return;
    }
  },
};

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

/** Bounds on `created`, inclusive or not, as the list's `created[gt|gte|lt|lte]` give them. */
export interface CreatedRange {
  gt?: Date;
  gte?: Date;
  lt?: Date;
  lte?: Date;
}

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
  const { gt, gte, lt, lte } = filters.created ?? {};
  if (gt) q.where('created_at', '>', gt);
  if (gte) q.where('created_at', '>=', gte);
  if (lt) q.where('created_at', '<', lt);
  if (!lte) return q.select(...COLUMNS, 'status');
  q.where('created_at', '<=', lte);
  return q.select(...COLUMNS, knex.raw(`CASE WHEN settled_at <= ? THEN 'available' ELSE 'pending' END AS status`, [lte]));
}

/** This owner's balance transactions, newest first, cursor-paged. */
export function listBalanceTransactions(
  knex: Knex,
  owner: Owner,
  cursor: CursorQuery,
  url: string,
  filters: BalanceTransactionFilters,
): Promise<CursorList<ReturnType<typeof balanceTransactionObject>>> {
  return cursorPage(balanceTransactionRows(knex, owner, filters), cursor, url, 'id', balanceTransactionObject);
}

/** The columns of the CSV export, in order (docs/reconciliation.md): stable names for finance tools. */
export const BALANCE_TRANSACTION_CSV_COLUMNS = ['id', 'created', 'available_on', 'type', 'source', 'status', 'currency', 'amount', 'fee', 'net'] as const;

/**
 * Every balance transaction matching the filters, oldest first, as CSV records: read a page at a
 * time by `seq`, so an export of any size holds one page in memory and no connection between pages.
 */
export async function* balanceTransactionRecords(knex: Knex, owner: Owner, filters: BalanceTransactionFilters): AsyncGenerator<Record<(typeof BALANCE_TRANSACTION_CSV_COLUMNS)[number], string | number>> {
  let after: string | null = null;
  for (;;) {
    const q = balanceTransactionRows(knex, owner, filters).orderBy('seq').limit(1000);
    if (after !== null) q.where('seq', '>', after);
    const rows = (await q) as BalanceTransactionRow[];
    for (const row of rows) {
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
    if (rows.length < 1000) return;
    after = rows[rows.length - 1]!.seq;
  }
}
