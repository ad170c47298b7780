import type { DomainEvent } from '#packages/core/decider.js';
import type { LedgerEntry } from '#packages/ledger/entry.js';

export { balanceStream, type BalanceRef, type Line } from '#packages/ledger/entry.js';

/**
 * The merchant's own accounts of a balance stream (the ledger family's part of the chart of
 * accounts, docs/ledger.md): `available`, `pending` and `reserved`. The others hold money for
 * someone else or are the platform's side; families declare them in their manifests.
 */
export type MerchantAccount = 'available' | 'pending' | 'reserved';
export const MERCHANT_ACCOUNTS: readonly MerchantAccount[] = ['available', 'pending', 'reserved'];

/** An account of the chart (docs/ledger.md): a kind, or a kind and the id of what it is held for. */
export type Account = string;

/**
 * A stored `ledger.entry_posted` as the read side reads it: the engine's entry (packages/ledger)
 * and the fields families store beside its amounts (their postings.ts writes them; none is
 * required, and the engine reads none). A family reads its own fields with its own type beside
 * this one (the marketplace's: MarketplaceEntryFields).
 */
export interface EntryPosted extends LedgerEntry {
  /** The campaign whose account a `campaign_*` entry moves. */
  campaign?: string;
  /** The batch whose hold a `batch_allocation` draws on. */
  batch?: string;
  /** The escrow contract of an `escrow_*` entry. */
  contract?: string;
}

export type LedgerEvent = DomainEvent<'ledger.entry_posted', EntryPosted>;
