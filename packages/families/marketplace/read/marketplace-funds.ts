import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { LedgerEvent } from '#packages/families/ledger/index.js';
import type { MarketplaceEntry } from '../marketplace-order/postings.js';
import { MARKETPLACE_ENTRY_KINDS } from '../marketplace-order/postings.js';
import type { DueShare } from '#packages/families/read-ports.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { insertRows } from '#packages/read-models/batch.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import type { Owner } from '#packages/core/owner.js';

/** Dropped (migration 002): the accounts are read.ledger_accounts'. */
const BALANCES = 'read.marketplace_balances';
const LEDGER_ACCOUNTS = 'read.ledger_accounts';
const SHARES = 'read.marketplace_shares';
const SETTLEMENTS = 'read.marketplace_settlements';
const ENTRIES = 'read.marketplace_entries';

export interface SettlementObject {
  id: string;
  object: 'marketplace_settlement';
  orderId: string;
  sellerId: string;
  currency: string;
  amountMinor: number;
  status: 'settled';
  livemode: boolean;
  created: number;
}

/** A settlement entry as the API shows it: one seller's share of one order moved to available. */
export function toSettlementObject(e: MarketplaceEntry): SettlementObject {
  return {
    id: e.entryId,
    object: 'marketplace_settlement',
    orderId: e.orderId!,
    sellerId: e.shares![0]!.sellerId,
    currency: e.currency,
    amountMinor: e.amount,
    status: 'settled',
    livemode: e.environment === 'live',
    created: unixSeconds(new Date(e.postedAt)),
  };
}

/**
 * The marketplace funds' read model (the accounts' balances are `read.ledger_accounts`): each
 * seller's share of each paid order with what of it is still pending (`read.marketplace_shares`,
 * what settlements are due from), and the settlements made (`read.marketplace_settlements`).
 */
export const marketplaceFundsProjection: Projection = {
  name: 'marketplace_funds',
  tables: [SHARES, SETTLEMENTS, ENTRIES],
  migrations: [
    {
      name: 'marketplace_funds/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE ${BALANCES} (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          currency text NOT NULL,
          account text NOT NULL,
          amount bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (merchant_id, environment, currency, account)
        );
        CREATE TABLE ${SHARES} (
          order_id text NOT NULL,
          seller_ref text NOT NULL,
          seller_id text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          currency text NOT NULL,
          pending bigint NOT NULL,
          paid_at timestamptz NOT NULL,
          PRIMARY KEY (order_id, seller_ref)
        );
        CREATE INDEX marketplace_shares_pending ON ${SHARES} (merchant_id, environment, paid_at) WHERE pending > 0;
        CREATE TABLE ${SETTLEMENTS} (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          status text NOT NULL,
          seller_ref text NOT NULL,
          currency text NOT NULL,
          object json NOT NULL
        );
        CREATE INDEX marketplace_settlements_list ON ${SETTLEMENTS} (merchant_id, environment, seq);
        CREATE TABLE ${ENTRIES} (
          entry_id text PRIMARY KEY,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          currency text NOT NULL,
          kind text NOT NULL,
          seller_pending bigint NOT NULL,
          seller_available bigint NOT NULL,
          posted_at timestamptz NOT NULL
        );
        CREATE INDEX marketplace_entries_balance ON ${ENTRIES} (merchant_id, environment, currency, posted_at)`),
    },
    {
      // Every account's balance is read.ledger_accounts' now that the marketplace's funds are accounts of the one ledger.
      name: 'marketplace_funds/002-drop-balances',
      up: (knex) => knex.raw(`DROP TABLE ${BALANCES}`),
    },
  ],
  // The marketplace's entries of the one ledger (docs/ledger.md); the merchant's own are elsewhere.
  handles: ['ledger.entry_posted'],
  async apply(trx, event) {
    const e: MarketplaceEntry = (event as unknown as LedgerEvent).data;
    if (!MARKETPLACE_ENTRY_KINDS.has(e.kind)) return;
    const owner = { merchant_id: e.merchantId, environment: e.environment, currency: e.currency };
    // The accounts' balances are read.ledger_accounts' (projection balances): here only what is the marketplace's own.
    const moved = (prefix: string) => e.lines.filter((l) => l.account.startsWith(prefix)).reduce((sum, l) => sum + l.amount, 0);
    await trx(ENTRIES)
      .insert({ entry_id: e.entryId, ...owner, kind: e.kind, seller_pending: moved('seller_pending:'), seller_available: moved('seller_available:'), posted_at: e.postedAt })
      .onConflict('entry_id')
      .ignore();
    switch (e.kind) {
      case 'order_payment':
        // One statement for all its shares.
        await insertRows(
          trx,
          SHARES,
          ['order_id', 'seller_ref'],
          (e.shares ?? []).map((share) => ({ ...owner, order_id: e.orderId!, seller_ref: share.sellerRef, seller_id: share.sellerId, pending: share.amount, paid_at: e.postedAt })),
        );
        break;
      case 'order_refund':
        for (const r of e.reversals ?? []) {
          await trx(SHARES)
            .where({ order_id: e.orderId!, seller_ref: r.sellerRef })
            .update({ pending: trx.raw('?? - ?', [`${SHARES}.pending`, r.fromPending]) });
        }
        break;
      case 'seller_settlement': {
        const share = e.shares![0]!;
        await trx(SHARES)
          .where({ order_id: e.orderId!, seller_ref: share.sellerRef })
          .update({ pending: trx.raw('?? - ?', [`${SHARES}.pending`, share.amount]) });
        const settlement = toSettlementObject(e);
        await trx(SETTLEMENTS)
          .insert({ id: settlement.id, seq: event.position, merchant_id: e.merchantId, environment: e.environment, status: settlement.status, seller_ref: share.sellerRef, currency: e.currency, object: JSON.stringify(settlement) })
          .onConflict('id')
          .ignore();
        break;
      }
    }
  },
};

/**
 * This owner's shares still pending and due at `at`: `rolling` sellers' once the delay has passed
 * since the payment, `weekly` sellers' from the first Monday (00:00 UTC) on or after that; never
 * `manual` sellers'. Oldest payment first.
 */
export async function dueSellerShares(knex: Knex, owner: Owner, currency: string | undefined, at: Date, limit: number): Promise<DueShare[]> {
  const q = knex(`${SHARES} as s`)
    .join('read.marketplace_sellers as v', 'v.id', 's.seller_ref')
    .where({ 's.merchant_id': owner.merchantId, 's.environment': owner.environment })
    .where('s.pending', '>', 0)
    .whereNot('v.settlement_mode', 'manual')
    .whereRaw(
      `(CASE WHEN v.settlement_mode = 'weekly'
          THEN (date_trunc('week', ((s.paid_at + make_interval(days => v.settlement_delay_days)) AT TIME ZONE 'UTC') - interval '1 microsecond') + interval '7 days') AT TIME ZONE 'UTC'
          ELSE s.paid_at + make_interval(days => v.settlement_delay_days) END) <= ?`,
      [at],
    )
    .orderBy([{ column: 's.paid_at' }, { column: 's.order_id' }, { column: 's.seller_ref' }])
    .limit(limit)
    .select<{ order_id: string; seller_ref: string; currency: string }[]>('s.order_id', 's.seller_ref', 's.currency');
  if (currency !== undefined) q.where('s.currency', currency);
  return (await q).map((r) => ({ orderId: r.order_id, sellerRef: r.seller_ref, currency: r.currency }));
}

export interface SellerBalance {
  currency: string;
  pendingMinor: number;
  availableMinor: number;
}

/** One seller's pending and available funds per currency. */
export async function sellerBalances(knex: Knex, owner: Owner, sellerRef: string): Promise<SellerBalance[]> {
  const rows = await ownedRows(knex, LEDGER_ACCOUNTS, owner)
    .whereIn('account', [`seller_pending:${sellerRef}`, `seller_available:${sellerRef}`])
    .groupBy('currency')
    .orderBy('currency')
    .select<{ currency: string; pending: string; available: string }[]>(
      'currency',
      knex.raw(`sum(CASE WHEN account LIKE 'seller_pending:%' THEN amount ELSE 0 END)::bigint AS pending`),
      knex.raw(`sum(CASE WHEN account LIKE 'seller_available:%' THEN amount ELSE 0 END)::bigint AS available`),
    );
  return rows.map((r) => ({ currency: r.currency, pendingMinor: Number(r.pending), availableMinor: Number(r.available) }));
}

export interface MarketplaceFundsTotal {
  currency: string;
  sellerPendingMinor: number;
  sellerAvailableMinor: number;
  commissionMinor: number;
}

/** The marketplace's funds per currency: what all sellers hold, pending and available, and the platform's commission (after processing fees). */
export async function marketplaceFundsTotals(knex: Knex, owner: Owner): Promise<MarketplaceFundsTotal[]> {
  const rows = await ownedRows(knex, LEDGER_ACCOUNTS, owner)
    .where((q) => {
      q.where('account', 'like', 'seller_%').orWhere('account', 'commission');
    })
    .groupBy('currency')
    .orderBy('currency')
    .select<{ currency: string; pending: string; available: string; commission: string }[]>(
      'currency',
      knex.raw(`sum(CASE WHEN account LIKE 'seller_pending:%' THEN amount ELSE 0 END)::bigint AS pending`),
      knex.raw(`sum(CASE WHEN account LIKE 'seller_available:%' THEN amount ELSE 0 END)::bigint AS available`),
      knex.raw(`sum(CASE WHEN account = 'commission' THEN amount ELSE 0 END)::bigint AS commission`),
    );
  return rows.map((r) => ({ currency: r.currency, sellerPendingMinor: Number(r.pending), sellerAvailableMinor: Number(r.available), commissionMinor: Number(r.commission) }));
}

const render = (stored: SettlementObject) => stored;

export function findMarketplaceSettlement(knex: Knex, owner: Owner, id: string): Promise<SettlementObject | undefined> {
  return findOwnedObject(knex, SETTLEMENTS, owner, id, render);
}

/** This owner's settlements, newest first, cursor-paged, by seller (uuid) and currency. */
export function listMarketplaceSettlements(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { seller_ref?: string; currency?: string }): Promise<CursorList<SettlementObject>> {
  return cursorPageOfObjects(ownedRows(knex, SETTLEMENTS, owner, filters), cursor, url, render);
}

export interface SellerFunds {
  currency: string;
  pending: number;
  available: number;
}

/**
 * What the owner's marketplace sellers hold per currency (pending and available), now or once every
 * entry posted up to `at` (inclusive) was applied: the seller funds the balance shows apart.
 */
export async function sellerFundsAt(knex: Knex, owner: Owner, at?: Date): Promise<SellerFunds[]> {
  const q = ownedRows(knex, ENTRIES, owner);
  if (at) q.where('posted_at', '<=', at);
  const rows = await q
    .groupBy('currency')
    .orderBy('currency')
    .select<{ currency: string; pending: string; available: string }[]>('currency', knex.raw('sum(seller_pending)::bigint AS pending'), knex.raw('sum(seller_available)::bigint AS available'));
  return rows.map((r) => ({ currency: r.currency, pending: Number(r.pending), available: Number(r.available) }));
}
