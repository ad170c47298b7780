import { assertAmounts } from '#packages/ledger/entry.js';
import type { Book, LedgerAction, LedgerReducer } from '#packages/ledger/decider.js';

/** A payment's net waiting in `pending` until its settlement date. */
interface PendingPayment {
  source: string;
  net: number;
  availableOn: string;
}

/** The payments of a balance not settled yet, in the order they were posted. */
export const pendingPayments: LedgerReducer<readonly PendingPayment[]> = {
  name: 'payments.pending',
  initial: [],
  evolve(pending, e) {
    if (e.kind === 'payment') return [...pending, { source: e.source, net: e.net, availableOn: e.availableOn }];
    if (e.kind === 'payment_settlement') return pending.filter((p) => p.source !== e.source);
    // The payment's reserve left pending for `reserved`: what settles is the rest.
    if (e.kind === 'reserve_hold') return pending.map((p) => (p.source === e.source ? { ...p, net: p.net + e.net } : p));
    return pending;
  },
};

/** A payment's rolling reserve held in `reserved` until `releaseOn` (docs/limits.md, "Rolling reserve"). */
interface HeldReserve {
  source: string;
  amount: number;
  releaseOn: string;
}

/** The reserves of a balance not released yet, in the order they were held. */
export const heldReserves: LedgerReducer<readonly HeldReserve[]> = {
  name: 'payments.reserves',
  initial: [],
  evolve(held, e) {
    if (e.kind === 'reserve_hold') return [...held, { source: e.source, amount: -e.net, releaseOn: e.availableOn }];
    if (e.kind === 'reserve_release') return held.filter((r) => r.source !== e.source);
    return held;
  },
};

/** A payment's reserve released: `reserved` → `available`, once (at its date, or when the payment is refunded). */
function releaseReserve(book: Book, reserve: HeldReserve): void {
  book.post({
    kind: 'reserve_release',
    source: reserve.source,
    lines: [
      { account: 'reserved', amount: -reserve.amount },
      { account: 'available', amount: reserve.amount },
    ],
    amount: reserve.amount,
    fee: 0,
    net: reserve.amount,
  });
}

/**
 * The reserve of this payment, if one is still held, released now: a refund of the payment spends
 * the money held against exactly that (docs/limits.md), so it is not held twice or refunded from
 * funds the reserve keeps. Nothing when the payment had none or it was released.
 */
function releaseReserveOf(book: Book, paymentId: string): void {
  const reserve = book.family(heldReserves).find((r) => r.source === paymentId);
  if (reserve) releaseReserve(book, reserve);
}

/** A refund's posting (`refund`) of the payment `paymentId`, its reserve released first, in the same decision: a refund refused for funds releases nothing. */
export function releasingReserve(paymentId: string, refund: LedgerAction): LedgerAction {
  if (refund.type !== 'post') throw new Error('Only a posting releases a reserve first');
  return {
    type: 'post',
    recipe(book) {
      releaseReserveOf(book, paymentId);
      refund.recipe(book);
    },
  };
}

/** Every payment whose settlement date has come: pending → available; and every reserve whose release date has come: reserved → available. */
function settleDueOn(book: Book): void {
  const due = book.family(pendingPayments).filter((p) => new Date(p.availableOn).getTime() <= book.at.getTime());
  for (const p of due) {
    book.post({
      kind: 'payment_settlement',
      source: p.source,
      lines: [
        { account: 'pending', amount: -p.net },
        { account: 'available', amount: p.net },
      ],
      amount: p.net,
      fee: 0,
      net: p.net,
    });
  }
  for (const r of book.family(heldReserves).filter((r) => new Date(r.releaseOn).getTime() <= book.at.getTime())) releaseReserve(book, r);
}

/** The settlements now due (the ledger's settlement job). */
export const settleDue = (): LedgerAction => ({ type: 'post', recipe: settleDueOn });

/**
 * A payment: the payer's money in from its clearing account, the net to `pending` until
 * `availableOn`, the fee to Sika, and its rolling reserve (if any) from `pending` to `reserved`
 * until `reserve.releaseOn`; then whatever is due settles. An intent posts once, as a payment
 * or as an escrow contract's funding.
 */
export function postPayment(payment: { source: string; clearing: string; amount: number; fee: number; availableOn: Date; reserve?: { amount: number; releaseOn: Date } }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, clearing, amount, fee } = payment;
      if (book.posted('payment', source) || book.posted('escrow_funding', source)) return;
      assertAmounts(amount, fee);
      if (fee > amount) throw new Error('A payment fee cannot exceed the amount');
      const net = amount - fee;
      book.post({
        kind: 'payment',
        source,
        lines: [
          { account: clearing, amount: -amount },
          { account: 'pending', amount: net },
          { account: 'fees', amount: fee },
        ],
        amount,
        fee,
        net,
        availableOn: payment.availableOn,
      });
      // The rolling reserve (docs/limits.md): part of the net held in `reserved` until its release date, out of pending with the payment.
      const reserve = payment.reserve;
      if (reserve && reserve.amount > 0) {
        if (!Number.isSafeInteger(reserve.amount) || reserve.amount > net) throw new Error(`A reserve of ${reserve.amount} does not fit in the payment's net (${net})`);
        book.post({
          kind: 'reserve_hold',
          source,
          lines: [
            { account: 'pending', amount: -reserve.amount },
            { account: 'reserved', amount: reserve.amount },
          ],
          amount: -reserve.amount,
          fee: 0,
          net: -reserve.amount,
          availableOn: reserve.releaseOn,
        });
      }
      settleDueOn(book);
    },
  };
}
