import type { Knex } from 'knex';
import { MERCHANT_ACCOUNTS, type LedgerEvent, type MerchantAccount } from '../packages/domain/ledger/events.js';
import type { Owner } from '../packages/domain/audit.js';
import type { RecordedEvent } from '../packages/eventstore/port.js';
import { addToRows, type Row } from './batch.js';
import type { Projection } from './projection.js';
import { ownedRows } from './queries.js';

const KEY = ['merchant_id', 'environment', 'currency'];

/** What an entry moved on each of the merchant's accounts. */
function moved(event: RecordedEvent): Row {
  const e = (event as unknown as LedgerEvent).data;
  const delta: Record<MerchantAccount, number> = { available: 0, pending: 0, reserved: 0 };
  for (const line of e.lines) {
    if ((MERCHANT_ACCOUNTS as readonly string[]).includes(line.account)) delta[line.account as MerchantAccount] += line.amount;
  }
  return { merchant_id: e.merchantId, environment: e.environment, currency: e.currency, ...delta };
}

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
  apply: (trx, event) => addToRows(trx, 'read.balances', KEY, MERCHANT_ACCOUNTS, [moved(event)]),
  applyBatch: (trx, events) => addToRows(trx, 'read.balances', KEY, MERCHANT_ACCOUNTS, events.map(moved)),
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
