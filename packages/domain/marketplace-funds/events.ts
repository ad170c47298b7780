import type { DomainEvent } from '../../core/decider.js';
import type { Account } from '../ledger/events.js';
import type { Environment } from '../merchant/events.js';

/**
 * The accounts of a marketplace's funds in one currency (docs/marketplace.md): money that belongs
 * to sellers (`seller_pending:<seller>`, `seller_available:<seller>`, by the seller's uuid), the
 * platform's `commission`, and the platform side of each entry (the clearing account the buyer's
 * payment came through, Sika's `fees`). None of them is the merchant's own `available`.
 */
export type SellerAccount = `seller_pending:${string}` | `seller_available:${string}`;
export type ClearingAccount = Extract<Account, 'card_clearing' | 'bank_clearing' | `operator_clearing:${string}`>;
/** Where the money of sellers' payouts waits between the hold and the operator's answer. */
export const SELLER_PAYOUTS = 'seller_payouts';
export type MarketplaceAccount = SellerAccount | 'seller_payouts' | 'commission' | 'fees' | ClearingAccount;

export const sellerPending = (sellerRef: string): SellerAccount => `seller_pending:${sellerRef}`;
export const sellerAvailable = (sellerRef: string): SellerAccount => `seller_available:${sellerRef}`;

/** One leg of a journal entry; every entry sums to zero. */
export interface MarketplaceLine {
  account: MarketplaceAccount;
  amount: number;
}

export type MarketplaceEntryKind =
  | 'order_payment' // clearing → seller_pending (each share) + commission; commission → fees (processing fee)
  | 'order_refund' // seller_pending / seller_available (each reversal) + commission → clearing
  | 'seller_settlement' // seller_pending → seller_available (one seller's share of one order)
  | 'seller_payout_hold' // seller_available → seller_payouts (amount + fee of a payout to the seller)
  | 'seller_payout_paid' // seller_payouts → clearing (amount) + fees (fee)
  | 'seller_payout_release'; // seller_payouts → seller_available (the payout failed or was canceled)

/** A seller's part of an order: what a payment credits, a refund reverses, a settlement moves. */
export interface SellerPart {
  sellerRef: string;
  sellerId: string;
  amount: number;
}

export interface RefundReversal extends SellerPart {
  /** Of `amount`, what came out of the seller's pending funds; the rest came out of their available funds. */
  fromPending: number;
}

export interface MarketplaceEntryPosted {
  entryId: string;
  kind: MarketplaceEntryKind;
  /** The order (payment), refund (refund), `<order>:<seller uuid>` (settlement) or payout (`po_…`) the entry is about. */
  source: string;
  /** The order of an order_payment, order_refund or seller_settlement; absent on payout entries. */
  orderId?: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  lines: MarketplaceLine[];
  /** Money moved: the amount paid, refunded or settled. */
  amount: number;
  /** order_payment: each seller's share; seller_settlement: the seller and what moved. */
  shares?: SellerPart[];
  /** order_payment, order_refund: the commission credited or reversed. */
  commission?: number;
  /** order_payment: the processing fee, paid out of the commission. */
  fee?: number;
  /** Seller payout entries: the seller paid out. */
  seller?: SellerPart;
  /** order_refund: each seller's reversal. */
  reversals?: RefundReversal[];
  postedAt: string;
}

export type MarketplaceFundsEvent = DomainEvent<'marketplace_funds.entry_posted', MarketplaceEntryPosted>;

export interface FundsRef {
  merchantId: string;
  environment: Environment;
  currency: string;
}

/** One stream per merchant × environment × currency, like the merchant's own balance: a refund's funds check and its reversal are one append. */
export const marketplaceFundsStream = (merchantId: string, environment: Environment, currency: string) =>
  `marketplace_funds-${merchantId}-${environment}-${currency.toLowerCase()}`;
