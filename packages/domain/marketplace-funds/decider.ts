import type { Decider } from '../../core/decider.js';
import { ApiError } from '../../core/errors.js';
import { PersistentMap } from '../../core/persistent-map.js';
import { unreachable } from '../aggregate.js';
import {
  sellerAvailable,
  sellerPending,
  type ClearingAccount,
  type FundsRef,
  type MarketplaceAccount,
  type MarketplaceEntryKind,
  type MarketplaceEntryPosted,
  type MarketplaceFundsEvent,
  type MarketplaceLine,
  type RefundReversal,
  type SellerPart,
} from './events.js';

export type FundsCommand = FundsRef & { at: Date; newEntryId: () => string } & (
    | { type: 'post_order_payment'; orderId: string; clearing: ClearingAccount; amount: number; fee: number; shares: SellerPart[]; commission: number }
    | { type: 'refund_order'; refundId: string; orderId: string; amount: number }
    | { type: 'settle_share'; orderId: string; sellerRef: string }
    | { type: 'hold_seller_payout'; payoutId: string; seller: SellerPart; fee: number }
    | { type: 'complete_seller_payout'; payoutId: string; clearing: ClearingAccount }
    | { type: 'release_seller_payout'; payoutId: string }
  );

/** A funds command without its context (balance, time, entry ids), which the caller fills in. */
export type FundsAction = FundsCommand extends infer C ? (C extends { type: string } ? Omit<C, keyof FundsRef | 'at' | 'newEntryId'> : never) : never;

/** A seller's share of one paid order: what is not refunded yet, and of that what is still pending. */
interface Share {
  sellerRef: string;
  sellerId: string;
  unrefunded: number;
  pending: number;
}

interface OrderFunds {
  clearing: ClearingAccount;
  shares: Share[];
  /** The commission not refunded yet. */
  commission: number;
}

/** A payout to a seller in flight: what was held (amount + fee) and the fee part. */
interface PayoutHold {
  seller: SellerPart;
  total: number;
  fee: number;
}

/**
 * Balances, entries posted and orders grow with the merchant's history: persistent maps, so that
 * an event copies one short path rather than all of them (the fold stays linear; the stream cache
 * keeps earlier states unchanged). Holds are the payouts in flight: few, a plain Map.
 */
export interface FundsState {
  balances: PersistentMap<number, MarketplaceAccount>;
  /** `kind:source` of every entry posted: each command is idempotent per object. */
  posted: PersistentMap<true>;
  orders: PersistentMap<OrderFunds>;
  holds: Map<string, PayoutHold>;
}

export const fundsBalance = (state: FundsState, account: MarketplaceAccount): number => state.balances.get(account) ?? 0;

export const isBalanced = (lines: readonly MarketplaceLine[]): boolean =>
  lines.reduce((sum, l) => sum + l.amount, 0) === 0 && lines.every((l) => Number.isSafeInteger(l.amount));

/**
 * Splits a refund of `amount` among parties in proportion to what each has not had refunded
 * (`remaining`; their sum is at least `amount`). Each gets the floor of its exact part; the units
 * left go one each to the largest remainders, the earlier party first on a tie. No party gets more
 * than it has left, and a refund of everything that remains gives each party all it has left, so
 * a series of partial refunds that ends in a full one reverses every share exactly.
 */
export function allocateRefund(remaining: readonly number[], amount: number): number[] {
  const total = remaining.reduce((s, r) => s + r, 0);
  if (amount > total) throw new Error(`A refund of ${amount} is above what remains (${total})`);
  if (total === 0) return remaining.map(() => 0);
  const big = BigInt(amount);
  const whole = BigInt(total);
  const parts = remaining.map((r, index) => {
    const exact = big * BigInt(r);
    return { index, floor: Number(exact / whole), remainder: exact % whole };
  });
  let left = amount - parts.reduce((s, p) => s + p.floor, 0);
  const byRemainder = [...parts].sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const p of byRemainder) {
    if (left === 0) break;
    if (p.remainder > 0n) {
      p.floor += 1;
      left -= 1;
    }
  }
  return parts.map((p) => p.floor);
}

function entry(
  command: FundsCommand,
  kind: MarketplaceEntryKind,
  source: string,
  lines: MarketplaceLine[],
  amount: number,
  extra: Pick<MarketplaceEntryPosted, 'shares' | 'commission' | 'fee' | 'reversals' | 'seller'> = {},
): MarketplaceFundsEvent {
  if (!isBalanced(lines)) throw new Error(`Unbalanced ${kind} entry for ${source}`);
  return {
    type: 'marketplace_funds.entry_posted',
    data: {
      entryId: command.newEntryId(),
      kind,
      source,
      ...('orderId' in command ? { orderId: command.orderId } : {}),
      merchantId: command.merchantId,
      environment: command.environment,
      currency: command.currency.toLowerCase(),
      lines: lines.filter((l) => l.amount !== 0),
      amount,
      ...extra,
      postedAt: command.at.toISOString(),
    },
  };
}

const settlementSource = (orderId: string, sellerRef: string) => `${orderId}:${sellerRef}`;

/**
 * The marketplace funds of one merchant × environment × currency as a Decider: order payments split
 * into seller shares and commission, refunds reversing them in proportion, settlements moving a
 * share from pending to available. Every entry balances; a seller's available funds never go below zero.
 */
export const fundsDecider: Decider<FundsCommand, FundsState, MarketplaceFundsEvent> = {
  initialState: { balances: PersistentMap.empty(), posted: PersistentMap.empty(), orders: PersistentMap.empty(), holds: new Map() },

  evolve(state, event) {
    const e = event.data;
    let balances = state.balances;
    for (const line of e.lines) balances = balances.set(line.account, (balances.get(line.account) ?? 0) + line.amount);
    const posted = state.posted.set(`${e.kind}:${e.source}`, true);
    let { orders, holds } = state;
    const order = e.orderId === undefined ? undefined : orders.get(e.orderId);
    switch (e.kind) {
      case 'order_payment': {
        // The first line: the clearing account the buyer's money came through.
        const clearing = e.lines[0]!.account as ClearingAccount;
        orders = orders.set(e.orderId!, {
          clearing,
          shares: (e.shares ?? []).map((s) => ({ sellerRef: s.sellerRef, sellerId: s.sellerId, unrefunded: s.amount, pending: s.amount })),
          commission: e.commission ?? 0,
        });
        break;
      }
      case 'order_refund': {
        const reversals = new Map((e.reversals ?? []).map((r) => [r.sellerRef, r]));
        orders = orders.set(e.orderId!, {
          ...order!,
          shares: order!.shares.map((s) => {
            const r = reversals.get(s.sellerRef);
            return r ? { ...s, unrefunded: s.unrefunded - r.amount, pending: s.pending - r.fromPending } : s;
          }),
          commission: order!.commission - (e.commission ?? 0),
        });
        break;
      }
      case 'seller_settlement': {
        const moved = e.shares?.[0];
        orders = orders.set(e.orderId!, { ...order!, shares: order!.shares.map((s) => (s.sellerRef === moved?.sellerRef ? { ...s, pending: s.pending - moved.amount } : s)) });
        break;
      }
      case 'seller_payout_hold':
        holds = new Map(holds).set(e.source, { seller: e.seller!, total: e.amount, fee: e.fee ?? 0 });
        break;
      case 'seller_payout_paid':
      case 'seller_payout_release':
        holds = new Map(holds);
        holds.delete(e.source);
        break;
    }
    return { balances, posted, orders, holds };
  },

  decide(command, state) {
    switch (command.type) {
      case 'post_order_payment': {
        if (state.posted.has(`order_payment:${command.orderId}`)) return [];
        const parts = [...command.shares.map((s) => s.amount), command.commission, command.fee];
        if (!parts.every((a) => Number.isSafeInteger(a) && a >= 0)) throw new Error('Order payment amounts must be non-negative integers');
        if (command.shares.reduce((s, p) => s + p.amount, 0) + command.commission !== command.amount) {
          throw new Error(`The shares and commission of order ${command.orderId} do not add up to its amount`);
        }
        return [
          entry(
            command,
            'order_payment',
            command.orderId,
            [
              { account: command.clearing, amount: -command.amount },
              ...command.shares.map((s) => ({ account: sellerPending(s.sellerRef), amount: s.amount })),
              { account: 'commission', amount: command.commission },
              // The platform pays the processing fee out of its commission.
              { account: 'commission', amount: -command.fee },
              { account: 'fees', amount: command.fee },
            ],
            command.amount,
            { shares: command.shares, commission: command.commission, fee: command.fee },
          ),
        ];
      }
      case 'refund_order': {
        if (state.posted.has(`order_refund:${command.refundId}`)) return [];
        const order = state.orders.get(command.orderId);
        if (!order) throw new Error(`Refund of order ${command.orderId}, whose payment was never posted`);
        const remaining = [...order.shares.map((s) => s.unrefunded), order.commission];
        const allocation = allocateRefund(remaining, command.amount);
        const reversals: RefundReversal[] = [];
        const lines: MarketplaceLine[] = [];
        order.shares.forEach((share, i) => {
          const amount = allocation[i]!;
          if (amount === 0) return;
          const fromPending = Math.min(amount, share.pending);
          const fromAvailable = amount - fromPending;
          if (fundsBalance(state, sellerAvailable(share.sellerRef)) < fromAvailable) {
            throw new ApiError('IKW-MKT-006', `Seller '${share.sellerId}' no longer has the ${amount} ${command.currency.toLowerCase()} of this refund that is theirs to return`, 'amountMinor');
          }
          reversals.push({ sellerRef: share.sellerRef, sellerId: share.sellerId, amount, fromPending });
          lines.push({ account: sellerPending(share.sellerRef), amount: -fromPending }, { account: sellerAvailable(share.sellerRef), amount: -fromAvailable });
        });
        const commission = allocation[order.shares.length]!;
        lines.push({ account: 'commission', amount: -commission }, { account: order.clearing, amount: command.amount });
        return [entry(command, 'order_refund', command.refundId, lines, command.amount, { reversals, commission })];
      }
      case 'settle_share': {
        const share = state.orders.get(command.orderId)?.shares.find((s) => s.sellerRef === command.sellerRef);
        if (!share || share.pending === 0) return [];
        return [
          entry(
            command,
            'seller_settlement',
            settlementSource(command.orderId, command.sellerRef),
            [
              { account: sellerPending(share.sellerRef), amount: -share.pending },
              { account: sellerAvailable(share.sellerRef), amount: share.pending },
            ],
            share.pending,
            { shares: [{ sellerRef: share.sellerRef, sellerId: share.sellerId, amount: share.pending }] },
          ),
        ];
      }
      case 'hold_seller_payout': {
        if (state.posted.has(`seller_payout_hold:${command.payoutId}`)) return [];
        const total = command.seller.amount + command.fee;
        const available = fundsBalance(state, sellerAvailable(command.seller.sellerRef));
        if (available < total) {
          throw new ApiError('IKW-MKT-007', `Seller '${command.seller.sellerId}' has ${available} ${command.currency.toLowerCase()} available, less than the amount plus the fee (${total})`, 'amountMinor');
        }
        return [
          entry(command, 'seller_payout_hold', command.payoutId, [
            { account: sellerAvailable(command.seller.sellerRef), amount: -total },
            { account: 'seller_payouts', amount: total },
          ], total, { seller: command.seller, fee: command.fee }),
        ];
      }
      case 'complete_seller_payout': {
        const hold = state.holds.get(command.payoutId);
        if (!hold) return []; // already completed or given back: idempotent
        return [
          entry(command, 'seller_payout_paid', command.payoutId, [
            { account: 'seller_payouts', amount: -hold.total },
            { account: command.clearing, amount: hold.total - hold.fee },
            { account: 'fees', amount: hold.fee },
          ], hold.total, { seller: hold.seller, fee: hold.fee }),
        ];
      }
      case 'release_seller_payout': {
        const hold = state.holds.get(command.payoutId);
        if (!hold) return [];
        return [
          entry(command, 'seller_payout_release', command.payoutId, [
            { account: 'seller_payouts', amount: -hold.total },
            { account: sellerAvailable(hold.seller.sellerRef), amount: hold.total },
          ], hold.total, { seller: hold.seller, fee: hold.fee }),
        ];
      }
      default:
        return unreachable(command);
    }
  },
};
