import { assertAmounts } from '../../../ledger/entry.js';
import type { Book, LedgerAction, LedgerReducer } from '../../../ledger/decider.js';

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
    return pending;
  },
};

/** Every payment whose settlement date has come: pending → available. */
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
}

/** The settlements now due (the ledger's settlement job). */
export const settleDue = (): LedgerAction => ({ type: 'post', recipe: settleDueOn });

/**
 * A payment: the payer's money in from its clearing account, the net to `pending` until
 * `availableOn`, the fee to Sika; then whatever is due settles. An intent posts once, as a payment
 * or as an escrow contract's funding.
 */
export function postPayment(payment: { source: string; clearing: string; amount: number; fee: number; availableOn: Date }): LedgerAction {
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
      settleDueOn(book);
    },
  };
}
