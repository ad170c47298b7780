import { Refusal } from '#packages/core/refusal.js';
import { refundLeg } from '#packages/ledger/clearing.js';
import { assertAmounts } from '#packages/ledger/entry.js';
import type { LedgerAction } from '#packages/ledger/decider.js';

/**
 * A refund of a payment: out of `available` (IKW-BAL-001 when it cannot cover it), back through
 * the payment's clearing account (through a rail keeping Sika's money: to its refunds in flight).
 */
export function refundPayment(refund: { source: string; clearing: string; amount: number }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, clearing, amount } = refund;
      if (book.posted('refund', source)) return;
      assertAmounts(amount);
      const available = book.balance('available');
      if (available < amount) throw new Refusal('IKW-BAL-001', `Available balance ${available} does not cover the refund (${amount})`, 'amount');
      book.post({
        kind: 'refund',
        source,
        lines: [
          { account: 'available', amount: -amount },
          { account: refundLeg(clearing), amount },
        ],
        amount: -amount,
        fee: 0,
        net: -amount,
      });
    },
  };
}
