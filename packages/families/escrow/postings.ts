import { Refusal } from '#packages/core/refusal.js';
import { refundLeg } from '#packages/ledger/clearing.js';
import { givenBack, paidOut, type Book, type HoldKind, type LedgerAction } from '#packages/ledger/decider.js';
import { assertAmounts, type LedgerEntry } from '#packages/ledger/entry.js';

/** A contract's escrow account (docs/escrow.md): its funds, never in `available`. */
export const escrowAccount = (contractId: string) => `escrow:${contractId}`;

/**
 * A movement out of a contract's escrow: the contract decided it, so running short means the two
 * disagree, a bug rather than a refusal; the escrow account never goes below zero.
 */
function assertEscrowCovers(book: Book, contract: string, amount: number): void {
  assertAmounts(amount);
  const held = book.balance(escrowAccount(contract));
  if (held < amount) throw new Error(`Escrow ${contract} holds ${held}, less than ${amount}`);
}

/** The payout of a release: its hold out of the contract's escrow; paid as any payout, or back to the contract. */
export const escrowPayoutHoldKind: HoldKind = {
  opens: 'escrow_payout_hold',
  endedBy: ['payout_paid', 'escrow_payout_release'],
  complete: (hold, to) => paidOut('payout_paid', hold, to),
  release: (hold) => givenBack('escrow_payout_release', hold, { contract: (hold.opened as LedgerEntry & { contract: string }).contract }),
};

/**
 * A contract funded by a payer's payment: the money in from its clearing account goes to the
 * contract's escrow (net) and Sika's fee, never to pending or available. An intent posts once,
 * as a payment or as a contract's funding.
 */
export function fundEscrowFromPayment(payment: { source: string; clearing: string; amount: number; fee: number; contract: string }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, clearing, amount, fee, contract } = payment;
      if (book.posted('payment', source) || book.posted('escrow_funding', source)) return;
      assertAmounts(amount, fee);
      if (fee > amount) throw new Error('A payment fee cannot exceed the amount');
      const net = amount - fee;
      book.post({
        kind: 'escrow_funding',
        source,
        lines: [
          { account: clearing, amount: -amount },
          { account: escrowAccount(contract), amount: net },
          { account: 'fees', amount: fee },
        ],
        amount,
        fee,
        net,
        refs: { contract },
      });
    },
  };
}

/** A contract funded from the merchant's available balance; IKW-BAL-001 when it cannot cover it. */
export function fundEscrow(funding: { source: string; contract: string; amount: number }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, contract, amount } = funding;
      if (book.posted('escrow_funding', source)) return;
      assertAmounts(amount);
      const available = book.balance('available');
      if (available < amount) throw new Refusal('IKW-BAL-001', `Available balance ${available} ${book.currency} does not cover the escrow funding (${amount})`, 'amountMinor');
      book.post({
        kind: 'escrow_funding',
        source,
        lines: [
          { account: 'available', amount: -amount },
          { account: escrowAccount(contract), amount },
        ],
        amount: -amount,
        fee: 0,
        net: -amount,
        refs: { contract },
      });
    },
  };
}

/** A release executed as a ledger transfer: escrow → available. */
export function releaseEscrow(release: { source: string; contract: string; amount: number }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, contract, amount } = release;
      if (book.posted('escrow_release', source)) return;
      assertEscrowCovers(book, contract, amount);
      book.post({
        kind: 'escrow_release',
        source,
        lines: [
          { account: escrowAccount(contract), amount: -amount },
          { account: 'available', amount },
        ],
        amount,
        fee: 0,
        net: amount,
        refs: { contract },
      });
    },
  };
}

/** Held funds returned to the payer (`to`: the payment's clearing account, or `available` for a contract funded from the balance). */
export function refundEscrow(refund: { source: string; contract: string; amount: number; to: string }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, contract, amount, to } = refund;
      if (book.posted('escrow_refund', source)) return;
      assertEscrowCovers(book, contract, amount);
      const signed = to === 'available' ? amount : -amount;
      book.post({
        kind: 'escrow_refund',
        source,
        lines: [
          { account: escrowAccount(contract), amount: -amount },
          { account: refundLeg(to), amount },
        ],
        amount: signed,
        fee: 0,
        net: signed,
        refs: { contract },
      });
    },
  };
}

/** The payout of a release: its hold of amount + fee out of the contract's escrow, once. */
export function holdOnEscrow(payout: { source: string; contract: string; amount: number; fee: number }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const { source, contract, amount, fee } = payout;
      assertAmounts(amount, fee);
      if (book.posted('escrow_payout_hold', source)) return;
      if (amount === 0) throw new Error(`The payout ${source} of a release sends nothing`);
      const total = amount + fee;
      assertEscrowCovers(book, contract, total);
      book.holdFunds({
        kind: 'escrow_payout_hold',
        source,
        lines: [
          { account: escrowAccount(contract), amount: -total },
          { account: 'reserved', amount: total },
        ],
        amount: -amount,
        fee,
        net: -total,
        refs: { contract },
      });
    },
  };
}
