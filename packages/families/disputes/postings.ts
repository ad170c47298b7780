import { givenBack, paidOut, type HoldKind, type LedgerAction } from '#packages/ledger/decider.js';
import { assertAmounts } from '#packages/ledger/entry.js';

/**
 * A dispute's hold (docs/disputes.md, "The ledger"): the disputed amount out of `available` into
 * `reserved` while the issuer decides. Won: given back (`dispute_release`); lost or accepted: paid
 * out to the clearing account the payment came in through (`dispute_loss`), the card network's.
 * The dispute's fee went to `fees` with the hold and stays there: neither end moves it again.
 */
export const disputeHoldKind: HoldKind = {
  opens: 'dispute_hold',
  endedBy: ['dispute_release', 'dispute_loss'],
  complete: (hold, to) => paidOut('dispute_loss', { ...hold, fee: 0 }, to),
  release: (hold) => givenBack('dispute_release', { ...hold, fee: 0 }),
};

/** What a dispute takes from `available` as it opens, decided on the balance read just before. */
export interface DisputeCharge {
  /** The disputed amount `available` covers. */
  held: number;
  /** The catalog's dispute fee, as far as `available` covers it after the hold. */
  fee: number;
  /** What `available` could not cover of the amount and the fee: recorded on the dispute, not on the ledger. */
  shortfall: number;
}

/**
 * What a dispute of `amount` takes from `available`: the hold first, then the fee. A dispute is not
 * refused (the issuer has taken the money back already), so what `available` lacks is a shortfall.
 */
export function disputeCharge(available: number, amount: number, fee: number): DisputeCharge {
  assertAmounts(amount, fee);
  const held = Math.max(0, Math.min(amount, available));
  const charged = Math.max(0, Math.min(fee, available - held));
  return { held, fee: charged, shortfall: amount + fee - held - charged };
}

/**
 * The dispute's hold and its fee, once, in one posting committed with its creation: `held` from
 * `available` into `reserved`, `fee` into `fees`. The balance moved since the charge was decided
 * (it no longer covers it): an error, and the job reading the dispute decides again.
 */
export function holdDisputed(dispute: { source: string; charge: DisputeCharge }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, charge } = dispute;
      const { held, fee } = charge;
      if (book.posted('dispute_hold', source) || held + fee === 0) return;
      if (book.balance('available') < held + fee) throw new Error(`dispute ${source}: available no longer covers ${held + fee}`);
      book.holdFunds({
        kind: 'dispute_hold',
        source,
        lines: [{ account: 'available', amount: -(held + fee) }, { account: 'reserved', amount: held }, ...(fee > 0 ? [{ account: 'fees', amount: fee }] : [])],
        amount: -held,
        fee,
        net: -(held + fee),
      });
    },
  };
}

/** A won dispute: its hold back to `available` (nothing when nothing was held, or already given back). */
export const releaseDisputed = (source: string): LedgerAction => ({ type: 'release', source });

/** A lost or accepted dispute: its hold out to the payment's clearing account, for good. */
export const debitDisputed = (source: string, clearing: string): LedgerAction => ({ type: 'complete', source, to: clearing });
