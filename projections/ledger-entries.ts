import type { Knex } from 'knex';
import type { Owner } from '../packages/domain/audit.js';
import { MERCHANT_ACCOUNTS, type LedgerEvent, type MerchantAccount } from '../packages/domain/ledger/events.js';
import type { Projection } from './projection.js';
import { ownedRows } from './queries.js';

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
  ],
  handles: ['ledger.entry_posted'],
  async apply(trx, event) {
    const e = (event as unknown as LedgerEvent).data;
    const moved: Record<MerchantAccount, number> = { available: 0, pending: 0, reserved: 0 };
    for (const line of e.lines) {
      if ((MERCHANT_ACCOUNTS as readonly string[]).includes(line.account)) moved[line.account as MerchantAccount] += line.amount;
    }
    await trx('read.ledger_entries')
      .insert({
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
        posted_at: e.postedAt,
      })
      .onConflict('entry_id')
      .ignore();
  },
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
