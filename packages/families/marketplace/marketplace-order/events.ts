import type { DomainEvent } from '#packages/core/decider.js';
import type { RefundReversal } from './postings.js';
import type { Environment } from '#packages/core/owner.js';

/**
 * `requires_payment` until its payment intent succeeds (`paid`) or the order is canceled; refunds
 * make a paid order `partially_refunded`, then `refunded` once all of it is.
 */
export type OrderStatus = 'requires_payment' | 'paid' | 'partially_refunded' | 'refunded' | 'canceled';
export const ORDER_STATUSES: readonly OrderStatus[] = ['requires_payment', 'paid', 'partially_refunded', 'refunded', 'canceled'];

/** One line of an order as stored: a seller's item, its price, and the commission it carries. */
export interface OrderLine {
  sellerId: string;
  /** The seller's uuid (marketplace_seller id). */
  sellerRef: string;
  description: string | null;
  amountMinor: number;
  commissionRuleId: string | null;
  commissionMinor: number;
}

export interface OrderCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  transactionCountry: string;
  idempotencyKey: string | null;
  buyerName: string | null;
  buyerEmail: string | null;
  paymentIntentId: string;
  lines: OrderLine[];
  amountMinor: number;
  commissionMinor: number;
  createdAt: string;
}

export interface OrderRefunded {
  refundId: string;
  amountMinor: number;
  reason: string | null;
  at: string;
}

export interface SellerShare {
  sellerId: string;
  sellerRef: string;
  amountMinor: number;
}

export interface OrderObject {
  id: string;
  object: 'marketplace_order';
  status: OrderStatus;
  currency: string;
  transactionCountry: string;
  amountMinor: number;
  commissionMinor: number;
  /** The payment's processing fee, paid out of the commission; null until paid. */
  processingFeeMinor: number | null;
  refundedMinor: number;
  idempotencyKey: string | null;
  buyerName: string | null;
  buyerEmail: string | null;
  paymentIntentId: string;
  lines: Omit<OrderLine, 'sellerRef'>[];
  sellerShares: { sellerId: string; amountMinor: number }[];
  paidAt: number | null;
  canceledAt: number | null;
  livemode: boolean;
  created: number;
}

export interface RefundObject {
  id: string;
  object: 'marketplace_refund';
  orderId: string;
  amountMinor: number;
  currency: string;
  reason: string | null;
  status: 'succeeded';
  /** What each seller gave back, and of it what came out of their pending funds. */
  sellerReversals: { sellerId: string; amountMinor: number; fromPendingMinor: number }[];
  commissionReversedMinor: number;
  livemode: boolean;
  created: number;
}

type WithObject<D> = D & { object: OrderObject };

export type OrderEvent =
  | DomainEvent<'marketplace_order.created', WithObject<OrderCreated>>
  | DomainEvent<'marketplace_order.paid', WithObject<{ fee: number; at: string }>>
  | DomainEvent<'marketplace_order.refunded', WithObject<OrderRefunded>>
  | DomainEvent<'marketplace_order.canceled', WithObject<{ at: string }>>;

export const orderStream = (id: string) => `marketplace_order-${id}`;

/** Each seller's share of an order: their lines less the commission of those lines, in the order sellers first appear. */
export function sellerShares(lines: readonly OrderLine[]): SellerShare[] {
  const shares = new Map<string, SellerShare>();
  for (const l of lines) {
    const share = shares.get(l.sellerRef) ?? { sellerId: l.sellerId, sellerRef: l.sellerRef, amountMinor: 0 };
    share.amountMinor += l.amountMinor - l.commissionMinor;
    shares.set(l.sellerRef, share);
  }
  return [...shares.values()];
}

export type { RefundReversal };
