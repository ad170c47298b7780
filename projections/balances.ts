import type { Knex } from 'knex';
import { MERCHANT_ACCOUNTS, type LedgerEvent, type MerchantAccount } from '../packages/domain/ledger/events.js';
import type { Owner } from '../packages/domain/audit.js';
import type { Projection } from './projection.js';
import { ownedRows } from './queries.js';

/** read.balances: available, pending and reserved per merchant × environment × currency. */
export const balancesProjection: Projection = {
  name: 'balances',
  tables: ['read.balances'],
  migrations: [
    {
      name: 'balances/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.balances (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          currency text NOT NULL,
          available bigint NOT NULL DEFAULT 0,
          pending bigint NOT NULL DEFAULT 0,
          reserved bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (merchant_id, environment, currency)
        )`),
    },
  ],
  handles: ['ledger.entry_posted'],
  async apply(trx, event) {
    const e = (event as unknown as LedgerEvent).data;
    const delta: Record<MerchantAccount, number> = { available: 0, pending: 0, reserved: 0 };
    for (const line of e.lines) {
      if ((MERCHANT_ACCOUNTS as readonly string[]).includes(line.account)) delta[line.account as MerchantAccount] += line.amount;
    }
    await trx('read.balances')
      .insert({ merchant_id: e.merchantId, environment: e.environment, currency: e.currency, ...delta })
      .onConflict(['merchant_id', 'environment', 'currency'])
      .merge({
        // Identifiers as bindings, so that a shadow rebuild (projections/verify.ts) renames them too.
        available: trx.raw('?? + ?', ['read.balances.available', delta.available]),
        pending: trx.raw('?? + ?', ['read.balances.pending', delta.pending]),
        reserved: trx.raw('?? + ?', ['read.balances.reserved', delta.reserved]),
      });
  },
};

export interface BalanceRow {
  currency: string;
  available: string;
  pending: string;
  reserved: string;
}

export function balancesOf(knex: Knex, owner: Owner): Promise<BalanceRow[]> {
  return ownedRows(knex, 'read.balances', owner).select('currency', 'available', 'pending', 'reserved').orderBy('currency');
}
