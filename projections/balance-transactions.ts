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
  tables: ['read.balance_transactions'],
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
    const settle = (type: string) => trx('read.balance_transactions').where({ source: e.source, type }).update({ status: 'available', settled_at: e.postedAt });
    switch (e.kind) {
      case 'payment':
        return void (await insert('payment', 'pending'));
      case 'payment_settlement':
        return void (await settle('payment'));
      case 'payout_hold':
        return void (await insert('payout', 'pending'));
      case 'payout_paid':
        return void (await settle('payout'));
      case 'payout_release':
        // The payout's own row is settled too: its funds came back through the payout_failure row.
        await settle('payout');
        return void (await insert('payout_failure', 'available'));
      case 'refund':
        return void (await insert('refund', 'available'));
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
  created?: CreatedRange;
}

/**
 * This owner's balance transactions that match the filters. With an inclusive upper bound
 * (`created.lte`) each row has the status it had at that moment: the list is the ledger as it stood then.
 */
export function balanceTransactionRows(knex: Knex, owner: Owner, filters: BalanceTransactionFilters): Knex.QueryBuilder {
  const q = ownedRows(knex, 'read.balance_transactions', owner, { type: filters.type, source: filters.source });
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
