import { Refusal } from '#packages/core/refusal.js';
import { PersistentMap } from '#packages/core/persistent-map.js';
import { assertRefundableThrough } from '#packages/ledger/clearing.js';
import { givenBack, paidOut, type HoldKind, type LedgerAction, type LedgerReducer } from '#packages/ledger/decider.js';
import { assertAmounts, type LedgerEntry, type Line } from '#packages/ledger/entry.js';
import { allocateRefund } from './allocation.js';

/**
 * The marketplace's postings (docs/marketplace.md): an order's payment split among its sellers'
 * pending funds and the commission, refunds of it, settlements of a seller's share, payouts to a
 * seller. None touches the merchant's own accounts.
 */

export const sellerPending = (sellerRef: string) => `seller_pending:${sellerRef}`;
export const sellerAvailable = (sellerRef: string) => `seller_available:${sellerRef}`;

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

/** The marketplace's fields of an entry, stored beside its amounts (docs/ledger.md, "Recipes"). */
export interface MarketplaceEntryFields {
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
}
/** A ledger entry as the marketplace reads it: the engine's entry and the marketplace's fields. */
export type MarketplaceEntry = LedgerEntry & MarketplaceEntryFields;

/** The entry kinds of marketplace funds: none touches the merchant's own accounts. */
export const MARKETPLACE_ENTRY_KINDS: ReadonlySet<string> = new Set(['order_payment', 'order_refund', 'seller_settlement', 'seller_payout_hold', 'seller_payout_paid', 'seller_payout_release']);

/** A seller's share of one paid order: what is not refunded yet, and of that what is still pending. */
interface Share {
  sellerRef: string;
  sellerId: string;
  unrefunded: number;
  pending: number;
}

/** The marketplace funds of one paid order: where its money came through, its shares, the commission not refunded yet. */
interface OrderFunds {
  clearing: string;
  shares: Share[];
  commission: number;
}

/** Paid marketplace orders of a balance (persistent: they grow with the merchant). */
export const marketplaceOrders: LedgerReducer<PersistentMap<OrderFunds>> = {
  name: 'marketplace.orders',
  initial: PersistentMap.empty(),
  evolve(orders, entry) {
    const e = entry as MarketplaceEntry;
    switch (e.kind) {
      case 'order_payment':
        return orders.set(e.orderId!, {
          // The first line: the clearing account the buyer's money came through.
          clearing: e.lines[0]!.account,
          shares: (e.shares ?? []).map((s) => ({ sellerRef: s.sellerRef, sellerId: s.sellerId, unrefunded: s.amount, pending: s.amount })),
          commission: e.commission ?? 0,
        });
      case 'order_refund': {
        const order = orders.get(e.orderId!)!;
        const reversals = new Map((e.reversals ?? []).map((r) => [r.sellerRef, r]));
        return orders.set(e.orderId!, {
          ...order,
          shares: order.shares.map((s) => {
            const r = reversals.get(s.sellerRef);
            return r ? { ...s, unrefunded: s.unrefunded - r.amount, pending: s.pending - r.fromPending } : s;
          }),
          commission: order.commission - (e.commission ?? 0),
        });
      }
      case 'seller_settlement': {
        const order = orders.get(e.orderId!)!;
        const moved = e.shares?.[0];
        return orders.set(e.orderId!, { ...order, shares: order.shares.map((s) => (s.sellerRef === moved?.sellerRef ? { ...s, pending: s.pending - moved.amount } : s)) });
      }
      default:
        return orders;
    }
  },
};

/** An order's payment: the buyer's money split into its sellers' pending funds and the commission, which pays the processing fee. */
export function postOrderPayment(payment: { orderId: string; clearing: string; amount: number; fee: number; shares: SellerPart[]; commission: number }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { orderId, clearing, amount, fee, shares, commission } = payment;
      if (book.posted('order_payment', orderId)) return;
      assertAmounts(...shares.map((s) => s.amount), commission, fee);
      if (shares.reduce((s, p) => s + p.amount, 0) + commission !== amount) throw new Error(`The shares and commission of order ${orderId} do not add up to its amount`);
      book.post({
        kind: 'order_payment',
        source: orderId,
        lines: [
          { account: clearing, amount: -amount },
          ...shares.map((s) => ({ account: sellerPending(s.sellerRef), amount: s.amount })),
          // The platform pays the processing fee out of its commission.
          { account: 'commission', amount: commission - fee },
          { account: 'fees', amount: fee },
        ],
        amount,
        fee,
        net: 0,
        refs: { orderId, shares, commission },
      });
    },
  };
}

/**
 * A refund of part of an order, split among its sellers and the commission in proportion to what
 * each has not had refunded (allocateRefund); each seller's part comes out of their pending funds
 * first, then their available funds, which must cover it (IKW-MKT-006).
 */
export function refundOrder(refund: { refundId: string; orderId: string; amount: number }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { refundId, orderId, amount } = refund;
      if (book.posted('order_refund', refundId)) return;
      const order = book.family(marketplaceOrders).get(orderId);
      if (!order) throw new Error(`Refund of order ${orderId}, whose payment was never posted`);
      assertRefundableThrough(order.clearing);
      const allocation = allocateRefund([...order.shares.map((s) => s.unrefunded), order.commission], amount);
      const reversals: RefundReversal[] = [];
      const lines: Line[] = [];
      order.shares.forEach((share, i) => {
        const part = allocation[i]!;
        if (part === 0) return;
        const fromPending = Math.min(part, share.pending);
        const fromAvailable = part - fromPending;
        if (book.balance(sellerAvailable(share.sellerRef)) < fromAvailable) {
          throw new Refusal('IKW-MKT-006', `Seller '${share.sellerId}' no longer has the ${part} ${book.currency} of this refund that is theirs to return`, 'amountMinor');
        }
        reversals.push({ sellerRef: share.sellerRef, sellerId: share.sellerId, amount: part, fromPending });
        lines.push({ account: sellerPending(share.sellerRef), amount: -fromPending }, { account: sellerAvailable(share.sellerRef), amount: -fromAvailable });
      });
      const commission = allocation[order.shares.length]!;
      lines.push({ account: 'commission', amount: -commission }, { account: order.clearing, amount });
      book.post({ kind: 'order_refund', source: refundId, lines, amount, fee: 0, net: 0, refs: { orderId, reversals, commission } });
    },
  };
}

/** A seller's share of one order settled: all of it still pending → their available funds. */
export function settleShare(settlement: { orderId: string; sellerRef: string }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { orderId, sellerRef } = settlement;
      const share = book
        .family(marketplaceOrders)
        .get(orderId)
        ?.shares.find((s) => s.sellerRef === sellerRef);
      if (!share || share.pending === 0) return;
      const moved = { sellerRef: share.sellerRef, sellerId: share.sellerId, amount: share.pending };
      book.post({
        kind: 'seller_settlement',
        source: `${orderId}:${sellerRef}`,
        lines: [
          { account: sellerPending(share.sellerRef), amount: -share.pending },
          { account: sellerAvailable(share.sellerRef), amount: share.pending },
        ],
        amount: share.pending,
        fee: 0,
        net: 0,
        refs: { orderId, shares: [moved] },
      });
    },
  };
}

const sellerOf = (hold: { opened: LedgerEntry }) => (hold.opened as MarketplaceEntry).seller!;

/** A payout to a seller: held on `seller_payouts`, paid to its clearing account and fees, or back to the seller's available funds. */
export const sellerPayoutHoldKind: HoldKind = {
  opens: 'seller_payout_hold',
  endedBy: ['seller_payout_paid', 'seller_payout_release'],
  // As the seller's funds see it: the total leaves them, none of it the merchant's.
  complete: (hold, to) => ({ ...paidOut('seller_payout_paid', hold, to, { seller: sellerOf(hold) }), amount: hold.total, fee: hold.fee, net: 0 }),
  release: (hold) => ({ ...givenBack('seller_payout_release', hold, { seller: sellerOf(hold) }), amount: hold.total, fee: hold.fee, net: 0 }),
};

/** A payout to a seller: amount + fee out of their available funds (IKW-MKT-007 when short), once. */
export function holdOnSeller(payout: { source: string; amount: number; fee: number; seller: Omit<SellerPart, 'amount'> }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, amount, fee } = payout;
      assertAmounts(amount, fee);
      if (book.posted('seller_payout_hold', source)) return;
      const total = amount + fee;
      const seller = { ...payout.seller, amount };
      const available = book.balance(sellerAvailable(seller.sellerRef));
      if (available < total) {
        throw new Refusal('IKW-MKT-007', `Seller '${seller.sellerId}' has ${available} ${book.currency} available, less than the amount plus the fee (${total})`, 'amountMinor');
      }
      book.holdFunds({
        kind: 'seller_payout_hold',
        source,
        lines: [
          { account: sellerAvailable(seller.sellerRef), amount: -total },
          { account: 'seller_payouts', amount: total },
        ],
        amount: total,
        fee,
        net: 0,
        refs: { seller },
      });
    },
  };
}
