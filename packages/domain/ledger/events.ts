import type { DomainEvent } from '../../core/decider.js';
import type { Environment } from '../merchant/events.js';

/**
 * Accounts of one merchant × environment × currency balance stream. The merchant's own accounts
 * are `available`, `pending` and `reserved`; the others are the platform's side of each entry.
 */
export type MerchantAccount = 'available' | 'pending' | 'reserved';
export type PlatformAccount = 'fees' | 'bank_clearing' | 'card_clearing' | `operator_clearing:${string}`;
/**
 * Funds the merchant holds for others, never in `available`: a contract's escrow (docs/escrow.md),
 * a funding campaign's contributions (docs/funding.md).
 */
export type HeldAccount = `escrow:${string}` | `campaign:${string}`;
export type Account = MerchantAccount | PlatformAccount | HeldAccount;
export const escrowAccount = (contractId: string): HeldAccount => `escrow:${contractId}`;
export const MERCHANT_ACCOUNTS: readonly MerchantAccount[] = ['available', 'pending', 'reserved'];

/** One leg of a journal entry: positive credits a merchant account; every entry sums to zero. */
export interface Line {
  account: Account;
  amount: number;
}

export type EntryKind =
  | 'payment' // operator clearing → pending (net) + fees
  | 'payment_settlement' // pending → available
  | 'payout_hold' // available → reserved (amount + fee)
  | 'payout_paid' // reserved → clearing (amount) + fees (fee)
  | 'payout_release' // reserved → available (failed or canceled payout)
  | 'refund' // available → clearing (amount), fee kept
  | 'batch_hold' // available → reserved: a payout batch's total + fees, at execution
  | 'batch_allocation' // reserved → reserved: part of a batch hold becomes one payout's hold
  | 'batch_release' // reserved → available: what a batch hold has left once nothing more will be sent
  | 'escrow_funding' // clearing → escrow (net) + fees, or available → escrow: a contract's funds arrive
  | 'escrow_release' // escrow → available: a release executed as a ledger transfer
  | 'escrow_payout_hold' // escrow → reserved: a release executed as a payout (its hold)
  | 'escrow_payout_release' // reserved → escrow: that payout failed, its hold goes back to the contract
  | 'escrow_refund' // escrow → clearing (or available): held funds returned to the payer
  | 'campaign_contribution' // clearing → campaign:<id> (gross): a contribution held for its campaign
  | 'campaign_refund' // campaign:<id> → clearing (gross): a held contribution given back
  | 'campaign_release'; // campaign:<id> → available (gross − fees) + fees: a campaign's funds released to the organizer

export interface EntryPosted {
  entryId: string;
  kind: EntryKind;
  /** The object the entry is about: a payment intent, payout or refund id. */
  source: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  lines: Line[];
  /** Gross amount, fee and net as the merchant sees them (balance transaction fields). */
  amount: number;
  fee: number;
  net: number;
  /** The campaign whose account a `campaign_*` entry moves. */
  campaign?: string;
  /** The batch whose hold a `batch_allocation` draws on. */
  batch?: string;
  /** The escrow contract of an `escrow_*` entry. */
  contract?: string;
  /** When the funds become available (payments), ISO date-time. */
  availableOn: string;
  postedAt: string;
}

export type LedgerEvent = DomainEvent<'ledger.entry_posted', EntryPosted>;

/** One balance: a merchant's money in one environment and currency. */
export interface BalanceRef {
  merchantId: string;
  environment: Environment;
  currency: string;
}

export const balanceStream = (merchantId: string, environment: Environment, currency: string) =>
  `balance-${merchantId}-${environment}-${currency.toLowerCase()}`;
