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
    });
    const insert = (type: string, status: string) => trx('read.balance_transactions').insert(row(type, status)).onConflict('id').ignore();
    switch (e.kind) {
      case 'payment':
        return void (await insert('payment', 'pending'));
      case 'payment_settlement':
        return void (await trx('read.balance_transactions').where({ source: e.source, type: 'payment' }).update({ status: 'available' }));
      case 'payout_hold':
      case 'batch_allocation':
        return void (await insert('payout', 'pending'));
      case 'payout_paid':
        return void (await trx('read.balance_transactions').where({ source: e.source, type: 'payout' }).update({ status: 'available' }));
      case 'payout_release':
        // The payout's own row is settled too: its funds came back through the payout_failure row.
        await trx('read.balance_transactions').where({ source: e.source, type: 'payout' }).update({ status: 'available' });
        return void (await insert('payout_failure', 'available'));
      case 'refund':
        return void (await insert('refund', 'available'));
      case 'batch_hold':
      case 'batch_release':
        // A batch's reservation is listed through its payouts (one row each, at allocation); the hold itself shows in `reserved`.
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

/** This owner's balance transactions, newest first, cursor-paged. */
export function listBalanceTransactions(
  knex: Knex,
  owner: Owner,
  cursor: CursorQuery,
  url: string,
  filters: { type?: string; source?: string },
): Promise<CursorList<ReturnType<typeof balanceTransactionObject>>> {
  return cursorPage(ownedRows(knex, 'read.balance_transactions', owner, filters).select('*'), cursor, url, 'id', balanceTransactionObject);
}
