import type { Knex } from 'knex';
import { railClearing } from '#packages/ledger/clearing.js';
import { MERCHANT_ACCOUNTS, type LedgerEvent, type MerchantAccount } from '../events.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { addToRows, type Row } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Environment, Owner } from '#packages/core/owner.js';

const KEY = ['merchant_id', 'environment', 'currency'];
const ACCOUNTS = 'read.ledger_accounts';
const ACCOUNT_KEY = ['merchant_id', 'environment', 'currency', 'account'];

/** What an entry moved on each of the merchant's accounts. */
function moved(event: RecordedEvent): Row {
  const e = (event as unknown as LedgerEvent).data;
  const delta: Record<MerchantAccount, number> = { available: 0, pending: 0, reserved: 0 };
  for (const line of e.lines) {
    if ((MERCHANT_ACCOUNTS as readonly string[]).includes(line.account)) delta[line.account as MerchantAccount] += line.amount;
  }
  return { merchant_id: e.merchantId, environment: e.environment, currency: e.currency, ...delta };
}

/** What an entry moved on every account it names. */
function accountLines(event: RecordedEvent): Row[] {
  const e = (event as unknown as LedgerEvent).data;
  return e.lines.map((l) => ({ merchant_id: e.merchantId, environment: e.environment, currency: e.currency, account: l.account, amount: l.amount }));
}

/**
 * The accounts of the one ledger as they stand (docs/ledger.md): `read.ledger_accounts`, one row
 * per merchant × environment × currency × account of the chart, and `read.balances`, the
 * merchant's own three as columns (the reporting view reads those). GET /api/v1/balance reads
 * both: its cost follows the accounts a merchant has, not the entries it ever posted.
 */
export const balancesProjection: Projection = {
  name: 'balances',
  tables: ['read.balances', ACCOUNTS],
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
    {
      // Every account, held funds included. A store from before fills it with `sika projections rebuild balances`.
      name: 'balances/002-ledger-accounts',
      up: (knex) =>
        knex.raw(`CREATE TABLE ${ACCOUNTS} (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          currency text NOT NULL,
          account text NOT NULL,
          amount bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (merchant_id, environment, currency, account)
        )`),
    },
  ],
  handles: ['ledger.entry_posted'],
  async apply(trx, event) {
    await addToRows(trx, 'read.balances', KEY, MERCHANT_ACCOUNTS, [moved(event)]);
    await addToRows(trx, ACCOUNTS, ACCOUNT_KEY, ['amount'], accountLines(event));
  },
  async applyBatch(trx, events) {
    await addToRows(trx, 'read.balances', KEY, MERCHANT_ACCOUNTS, events.map(moved));
    await addToRows(trx, ACCOUNTS, ACCOUNT_KEY, ['amount'], events.flatMap(accountLines));
  },
};

/** The kinds of held funds GET /api/v1/balance shows in `held` (the chart's accounts held for others). */
export const HELD_KINDS = ['escrow', 'campaign', 'seller_pending', 'seller_available', 'seller_payouts'] as const;
export type HeldKind = (typeof HELD_KINDS)[number];

export interface HeldFunds {
  kind: HeldKind;
  currency: string;
  amount: number;
}

/** Funds the owner holds for others, per kind and currency, as the accounts stand now. */
export async function heldFundsOf(knex: Knex, owner: Owner): Promise<HeldFunds[]> {
  const rows = await ownedRows(knex, ACCOUNTS, owner)
    .whereRaw(`split_part(account, ':', 1) = ANY(?)`, [[...HELD_KINDS]])
    .groupByRaw(`currency, split_part(account, ':', 1)`)
    .orderByRaw(`currency, split_part(account, ':', 1)`)
    .select<{ currency: string; kind: HeldKind; amount: string }[]>('currency', knex.raw(`split_part(account, ':', 1) AS kind`), knex.raw('sum(amount)::bigint AS amount'));
  return rows.map((r) => ({ kind: r.kind, currency: r.currency, amount: Number(r.amount) }));
}

export interface BalanceRow {
  currency: string;
  available: string;
  pending: string;
  reserved: string;
}

export function balancesOf(knex: Knex, owner: Owner): Promise<BalanceRow[]> {
  return ownedRows(knex, 'read.balances', owner).select('currency', 'available', 'pending', 'reserved').orderBy('currency');
}

/**
 * What Sika's ledger expects a rail that keeps its money (docs/ledger.md, "Clearing accounts") to
 * hold for it in `environment`, per currency: the opposite of the rail's clearing account summed
 * over every merchant (collections in, less payouts and refunds out). Currencies never posted are absent.
 */
export async function railHoldings(knex: Knex, connector: string, environment: Environment): Promise<{ currency: string; amount: number }[]> {
  const rows = await knex(ACCOUNTS)
    .where({ environment, account: railClearing(connector) })
    .groupBy('currency')
    .orderBy('currency')
    .select<{ currency: string; total: string }[]>('currency', knex.raw('SUM(amount) AS total'));
  return rows.map((r) => ({ currency: r.currency, amount: -Number(r.total) }));
}
