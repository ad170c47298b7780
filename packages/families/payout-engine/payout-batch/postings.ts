import { Refusal } from '#packages/core/refusal.js';
import { givenBack, paidOut, type HoldKind, type LedgerAction } from '#packages/ledger/decider.js';
import { assertAmounts } from '#packages/ledger/entry.js';

/** A batch execution's hold on `available`: its items' holds are carved out of it; what is left is given back. */
export const batchHoldKind: HoldKind = {
  opens: 'batch_hold',
  endedBy: ['batch_release'],
  release: (hold) => (hold.total === 0 ? null : givenBack('batch_release', hold)),
};

/** A batch item's payout hold, carved out of its batch's (`batch` on the entry): paid or given back as any payout's. */
export const batchItemHoldKind: HoldKind = {
  opens: 'batch_allocation',
  endedBy: ['payout_paid', 'payout_release'],
  carvedFrom: (entry) => (entry as { batch?: string }).batch,
  complete: (hold, to) => paidOut('payout_paid', hold, to),
  release: (hold) => givenBack('payout_release', hold),
};

/** A batch execution's hold of its total + fees on `available`, once; IKW-BAL-001 when it cannot cover it. */
export function holdBatch(batch: { source: string; amount: number; fee: number }): LedgerAction {
  return {
    type: 'post',
    recipe: (book) =>
      book.holdAmountAndFee({
        kind: 'batch_hold',
        source: batch.source,
        amount: batch.amount,
        fee: batch.fee,
        from: 'available',
        to: 'reserved',
        short: (available, total) => new Refusal('IKW-BAL-001', `Available balance ${available} ${book.currency} does not cover the batch total plus fees (${total})`),
      }),
  };
}

/**
 * A batch item's payout hold of amount + fee, carved out of its batch's hold (the reserved total
 * does not change). The batch checked it covers its items, so running short is a bug.
 */
export function holdBatchItem(item: { source: string; amount: number; fee: number; batch: string }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, amount, fee, batch } = item;
      assertAmounts(amount, fee);
      if (book.posted('batch_allocation', source)) return;
      const total = amount + fee;
      const held = book.hold(batch);
      if (!held || held.total < total || held.fee < fee) throw new Error(`Batch hold ${batch} does not cover payout ${source}`);
      book.holdFunds({
        kind: 'batch_allocation',
        source,
        lines: [
          { account: 'reserved', amount: -total },
          { account: 'reserved', amount: total },
        ],
        amount: -amount,
        fee,
        net: -total,
        refs: { batch },
      });
    },
  };
}

/** What a batch execution's hold has left, once nothing more will be sent: back to `available`. */
export const releaseBatch = (source: string): LedgerAction => ({ type: 'release', source });
