import { Refusal } from '../../core/refusal.js';
import type { DomainEvent } from '../../core/decider.js';
import type { Environment } from '../../core/owner.js';

/**
 * Accounts of one merchant × environment × currency balance stream, as the chart of accounts
 * declares them (accounts.ts, docs/ledger.md). The merchant's own accounts are `available`,
 * `pending` and `reserved`; the others hold money for someone else or are the platform's side.
 */
export type MerchantAccount = 'available' | 'pending' | 'reserved';
export type ClearingAccount = 'bank_clearing' | 'card_clearing' | `operator_clearing:${string}` | RailClearing;
export type RailClearing = `rail_clearing:${string}`;
/** The clearing account of the rail a connector keeping Sika's money carries (docs/ledger.md, "Clearing accounts"). */
export const railClearing = (connector: string): RailClearing => `rail_clearing:${connector}`;

/**
 * The clearing account of an attempt (docs/ledger.md, "Clearing accounts"): the rail's own when
 * the attempt records the connector that carried it (a connector keeping Sika's money in a wallet,
 * as pawaPay does); else `fallback`, the operator's or network's, as attempts recorded before
 * connectors were and the sandbox simulator, which holds no money, post.
 */
export function clearingOf<C extends ClearingAccount>(connector: string | undefined, fallback: C): C | RailClearing {
  return connector === undefined ? fallback : railClearing(connector);
}

/**
 * Money sent back to payers through a rail that keeps Sika's money (docs/ledger.md, "Refunds
 * through a rail"), while the rail has not answered: out of the merchant's balance, not yet out of
 * the rail's wallet. A refund that succeeds moves it on to `rail_clearing:<connector>`; one that
 * fails goes back where it came from (`refund_reversal`).
 */
export type RailRefunds = `rail_refunds:${string}`;
export const railRefunds = (connector: string): RailRefunds => `rail_refunds:${connector}`;

/**
 * Where the money of a refund entry goes: through a rail that keeps Sika's money, first to the
 * rail's refunds in flight (the rail's answer decides whether it leaves); anywhere else straight
 * to the clearing account, as the simulator's and the operators' refunds always did.
 */
export function refundLeg(clearing: Account): Account {
  return clearing.startsWith('rail_clearing:') ? railRefunds(clearing.slice('rail_clearing:'.length)) : clearing;
}

/**
 * Refuses money back to a payer through a rail's clearing account (IKW-PRV-006) for the refund
 * kinds whose family does not follow a rail's answer yet (an escrow contract's, a campaign's, a
 * marketplace order's: docs/connectors.md, "Refunds through a rail"): a refund on the ledger alone
 * would say refunded while the payer gets nothing. A payment's refund goes through the rail
 * (`refundLeg`); the simulator's and the operators' clearing accounts refund as before.
 */
export function assertRefundableThrough(clearing: Account): void {
  if (clearing.startsWith('rail_clearing:')) {
    throw new Refusal('IKW-PRV-006', `The payment came in through ${clearing.slice('rail_clearing:'.length)}, whose refunds Sika does not send for this kind of refund yet; nothing was refunded`, 'id');
  }
}
export type PlatformAccount = 'fees' | ClearingAccount;
/**
 * Funds the merchant holds for others, never in `available`: a contract's escrow (docs/escrow.md),
 * a funding campaign's contributions (docs/funding.md), a marketplace seller's funds and the holds
 * of their payouts (docs/marketplace.md).
 */
export type SellerAccount = `seller_pending:${string}` | `seller_available:${string}`;
export type HeldAccount = `escrow:${string}` | `campaign:${string}` | SellerAccount | 'seller_payouts';
/** The marketplace's commission: the merchant's, apart from its balance (it pays the processing fees of orders). */
export type Account = MerchantAccount | PlatformAccount | HeldAccount | RailRefunds | 'commission';
export const escrowAccount = (contractId: string): HeldAccount => `escrow:${contractId}`;
export const campaignAccount = (campaignId: string): HeldAccount => `campaign:${campaignId}`;
export const sellerPending = (sellerRef: string): SellerAccount => `seller_pending:${sellerRef}`;
export const sellerAvailable = (sellerRef: string): SellerAccount => `seller_available:${sellerRef}`;
export const MERCHANT_ACCOUNTS: readonly MerchantAccount[] = ['available', 'pending', 'reserved'];

/** A seller's part of an order: what a payment credits, a refund reverses, a settlement moves, a payout pays. */
export interface SellerPart {
  sellerRef: string;
  sellerId: string;
  amount: number;
}

export interface RefundReversal extends SellerPart {
  /** Of `amount`, what came out of the seller's pending funds; the rest came out of their available funds. */
  fromPending: number;
}

/** One leg of a journal entry: positive credits a merchant account; every entry sums to zero. */
export interface Line {
  account: Account;
  amount: number;
}

export type EntryKind =
  | 'payment' // operator (or rail) clearing → pending (net) + fees
  | 'payment_settlement' // pending → available
  | 'payout_hold' // available → reserved (amount + fee)
  | 'payout_paid' // reserved → clearing (amount) + fees (fee)
  | 'payout_release' // reserved → available (failed or canceled payout)
  | 'refund' // available → clearing (amount), fee kept; through a rail keeping Sika's money: → rail_refunds:<connector>
  | 'rail_refund_sent' // rail_refunds:<connector> → rail_clearing:<connector>: the rail refunded the payer
  | 'refund_reversal' // a refund entry reversed, rail_refunds:<connector> → where it came from: the rail refused or failed it
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
  | 'campaign_release' // campaign:<id> → available (gross − fees) + fees: a campaign's funds released to the organizer
  | 'order_payment' // clearing → seller_pending:<s> (each share) + commission; commission → fees (processing fee)
  | 'order_refund' // seller_pending / seller_available (each reversal) + commission → clearing
  | 'seller_settlement' // seller_pending:<s> → seller_available:<s> (one seller's share of one order)
  | 'seller_payout_hold' // seller_available:<s> → seller_payouts (amount + fee of a payout to the seller)
  | 'seller_payout_paid' // seller_payouts → clearing (amount) + fees (fee)
  | 'seller_payout_release'; // seller_payouts → seller_available:<s> (the payout failed or was canceled)

/** The entry kinds of marketplace funds: none touches the merchant's own accounts. */
export const MARKETPLACE_ENTRY_KINDS: ReadonlySet<EntryKind> = new Set([
  'order_payment',
  'order_refund',
  'seller_settlement',
  'seller_payout_hold',
  'seller_payout_paid',
  'seller_payout_release',
]);

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
  /** The marketplace order of an order_payment, order_refund or seller_settlement. */
  orderId?: string;
  /** order_payment: each seller's share; seller_settlement: the seller and what moved. */
  shares?: SellerPart[];
  /** order_payment, order_refund: the commission credited or reversed. */
  commission?: number;
  /** order_refund: each seller's reversal. */
  reversals?: RefundReversal[];
  /** Seller payout entries: the seller paid out. */
  seller?: SellerPart;
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
