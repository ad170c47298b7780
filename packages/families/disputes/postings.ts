import { givenBack, paidOut, type HoldKind, type LedgerAction } from '../../ledger/decider.js';
import { assertAmounts } from '../../ledger/entry.js';

/**
 * A dispute's hold (docs/disputes.md, "The ledger"): the disputed amount out of `available` into
 * `reserved` while the issuer decides. Won: given back (`dispute_release`); lost or accepted: paid
 * out to the clearing account the payment came in through (`dispute_loss`), the card network's.
 */
export const disputeHoldKind: HoldKind = {
  opens: 'dispute_hold',
  endedBy: ['dispute_release', 'dispute_loss'],
  complete: (hold, to) => paidOut('dispute_loss', hold, to),
  release: (hold) => givenBack('dispute_release', hold),
};

/**
 * The dispute's hold, once, committed with its creation. A dispute is not refused: the issuer has
 * taken the money back already. What `available` cannot cover is not held (the shortfall is the
 * platform's to recover, docs/disputes.md); nothing available holds nothing.
 */
export function holdDisputed(dispute: { source: string; amount: number }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, amount } = dispute;
      assertAmounts(amount);
      if (book.posted('dispute_hold', source)) return;
      const held = Math.min(amount, book.balance('available'));
      if (held <= 0) return;
      book.holdFunds({
        kind: 'dispute_hold',
        source,
        lines: [
          { account: 'available', amount: -held },
          { account: 'reserved', amount: held },
        ],
        amount: -held,
        fee: 0,
        net: -held,
      });
    },
  };
}

/** A won dispute: its hold back to `available` (nothing when nothing was held, or already given back). */
export const releaseDisputed = (source: string): LedgerAction => ({ type: 'release', source });

/** A lost or accepted dispute: its hold out to the payment's clearing account, for good. */
export const debitDisputed = (source: string, clearing: string): LedgerAction => ({ type: 'complete', source, to: clearing });
