/**
 * The daily payout cap as the ledger decides it (docs/limits.md): the day's payouts folded from the
 * balance's entries by `risk.payouts_by_day`, every payout and batch hold wrapped by
 * `withinPayoutLimits`. A payout counts from its hold until it is given back; a batch from its
 * execution, less its failed items and what it gives back; yesterday does not count.
 */
import t, { type Test } from '#tap';
import '#packages/families/index.js';
import { fold } from '#packages/core/decider.js';
import { isRefused } from '#packages/core/refusal.js';
import type { LedgerAction, LedgerState } from '#packages/ledger/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import type { LedgerEvent } from '#packages/families/ledger/events.js';
import { postPayment } from '#packages/families/payments/payment-intent/postings.js';
import { completePayout, holdOnAvailable, releasePayout } from '#packages/families/payouts/payout/postings.js';
import { holdBatch, holdBatchItem, releaseBatch } from '#packages/families/payout-engine/payout-batch/postings.js';
import { noLimits, secondsToNextDay, withinPayoutLimits, type Limits } from '#packages/families/risk/index.js';

let n = 0;
const capped: Limits = { ...noLimits('acct_1', 'sandbox'), dailyPayoutCaps: { xof: 1_000 } };

class Balance {
  private events: LedgerEvent[] = [];
  at = new Date('2026-01-01T10:00:00Z');
  get state(): LedgerState {
    return fold(familiesLedger.decider, this.events);
  }
  run(action: LedgerAction): void {
    const command = { ...action, merchantId: 'acct_1', environment: 'sandbox' as const, currency: 'XOF', at: this.at, newEntryId: () => `txn_${++n}` };
    this.events.push(...(familiesLedger.decider.decide(command, this.state) as LedgerEvent[]));
  }
  payout(id: string, amount: number, limits: Limits = capped): void {
    this.run(withinPayoutLimits(limits, { source: id, amount, largest: amount }, holdOnAvailable({ source: id, amount, fee: 100 })));
  }
}

function funded(): Balance {
  const b = new Balance();
  b.run(postPayment({ source: 'pi_1', clearing: 'card_clearing', amount: 100_000, fee: 0, availableOn: b.at }));
  return b;
}

/** `run` is refused with `code`, posting nothing. */
function refused(t: Test, run: () => void, code: string, what: string): void {
  try {
    run();
    t.fail(`${what}: not refused`);
  } catch (err) {
    t.ok(isRefused(err) && err.code === code, `${what}: ${code}`);
  }
}

t.test('a payout counts from its hold until it is given back; paid ones keep counting', async (t) => {
  const b = funded();
  b.payout('po_1', 600);
  refused(t, () => b.payout('po_2', 401), 'IKW-LIM-004', '600 + 401 is above 1000');
  b.run(completePayout('po_1', 'card_clearing'));
  refused(t, () => b.payout('po_2', 401), 'IKW-LIM-004', 'paid, it still counts');
  b.payout('po_3', 400);
  t.pass('600 + 400 is the cap: passes');
  b.run(releasePayout('po_3'));
  b.payout('po_4', 400);
  t.pass('a failed payout frees its amount');
  b.payout('po_4', 400);
  t.pass('a hold already posted (a retry) is not decided again');
});

t.test('a batch counts from its execution, less its failed items and what it gives back', async (t) => {
  const b = funded();
  const limits = { ...capped, dailyPayoutCaps: { xof: 3_000 } };
  b.run(withinPayoutLimits(limits, { source: 'bh_1', amount: 3_000, largest: 1_000 }, holdBatch({ source: 'bh_1', amount: 3_000, fee: 300 })));
  refused(t, () => b.payout('po_1', 100, limits), 'IKW-LIM-004', 'the batch took the day');
  b.run(holdBatchItem({ source: 'po_a', amount: 1_000, fee: 100, batch: 'bh_1' }));
  b.run(holdBatchItem({ source: 'po_b', amount: 1_000, fee: 100, batch: 'bh_1' }));
  b.run(releasePayout('po_a'));
  b.payout('po_2', 1_000, limits);
  t.pass("a failed item's amount is free again");
  b.run(releaseBatch('bh_1'));
  b.payout('po_3', 1_000, limits);
  t.pass('what the batch gave back at its end is free again');
  refused(t, () => b.payout('po_4', 100, limits), 'IKW-LIM-004', 'and no more');
});

t.test('the day is UTC; yesterday does not count; Retry-After is the seconds to midnight', async (t) => {
  const b = funded();
  b.at = new Date('2026-01-01T23:59:00Z');
  b.payout('po_1', 1_000);
  try {
    b.payout('po_2', 100);
    t.fail('refused');
  } catch (err) {
    t.ok(isRefused(err) && err.code === 'IKW-LIM-004');
    t.equal((err as { retryAfterSeconds?: number }).retryAfterSeconds, 60);
  }
  b.at = new Date('2026-01-02T00:00:00Z');
  b.payout('po_3', 1_000);
  t.pass('a new day');
  t.equal(secondsToNextDay(new Date('2026-01-02T00:00:00Z')), 86_400);
});

t.test('a freeze refuses every payout; the maximum refuses one above it', async (t) => {
  const b = funded();
  const frozen = { ...noLimits('acct_1', 'sandbox'), payoutFreeze: { reason: 'Review', since: b.at.toISOString() } };
  refused(t, () => b.payout('po_1', 100, frozen), 'IKW-LIM-005', 'frozen');
  const maximum = { ...noLimits('acct_1', 'sandbox'), transactionMaximums: { xof: 500 } };
  refused(t, () => b.payout('po_1', 501, maximum), 'IKW-LIM-003', 'one above the maximum');
  b.payout('po_1', 500, maximum);
  t.equal(b.state.holds.size, 1, 'one hold: the refused ones posted nothing');
});
