import { Refusal } from '#packages/core/refusal.js';
import { givenBack, paidOut, type HoldKind, type LedgerAction } from '#packages/ledger/decider.js';

/** A payout's hold on `available`: paid out to its clearing account and fees, or given back. */
export const payoutHoldKind: HoldKind = {
  opens: 'payout_hold',
  endedBy: ['payout_paid', 'payout_release'],
  complete: (hold, to) => paidOut('payout_paid', hold, to),
  release: (hold) => givenBack('payout_release', hold),
};

/** A payout's hold of amount + fee on the merchant's available balance, once; IKW-BAL-001 when it cannot cover it. */
export function holdOnAvailable(payout: { source: string; amount: number; fee: number }): LedgerAction {
  return {
    type: 'post',
    recipe: (book) =>
      book.holdAmountAndFee({
        kind: 'payout_hold',
        source: payout.source,
        amount: payout.amount,
        fee: payout.fee,
        from: 'available',
        to: 'reserved',
        short: (available, total) => new Refusal('IKW-BAL-001', `Available balance ${available} ${book.currency} does not cover the amount plus fees (${total})`, 'amount'),
      }),
  };
}

/** A payout paid: its hold, wherever it was taken from, to the clearing account the payout went through. */
export const completePayout = (source: string, clearing: string): LedgerAction => ({ type: 'complete', source, to: clearing });
/** A payout failed or canceled: its hold back where it came from. */
export const releasePayout = (source: string): LedgerAction => ({ type: 'release', source });
