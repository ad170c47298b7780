import t from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import { balanceOf, isBalanced, ledgerDecider, type LedgerCommand, type LedgerState } from '../../packages/domain/ledger/decider.js';
import type { LedgerEvent } from '../../packages/domain/ledger/events.js';

let n = 0;
const ctx = (at = new Date('2026-01-01T00:00:00Z')) => ({ merchantId: 'acct_1', environment: 'sandbox' as const, currency: 'XOF', at, newEntryId: () => `txn_${++n}` });

function apply(history: LedgerEvent[], command: LedgerCommand): LedgerEvent[] {
  const events = ledgerDecider.decide(command, fold(ledgerDecider, history));
  history.push(...events);
  return events;
}

function total(state: LedgerState): number {
  let sum = 0;
  for (const v of state.balances.values()) sum += v;
  return sum;
}

t.test('a sandbox payment credits amount − fee and is available at once', async (t) => {
  const h: LedgerEvent[] = [];
  const events = apply(h, { ...ctx(), type: 'post_payment', source: 'pi_1', clearing: 'operator_clearing:wave', amount: 10_000, fee: 150, availableOn: ctx().at });
  t.same(events.map((e) => e.data.kind), ['payment', 'payment_settlement']);
  const s = fold(ledgerDecider, h);
  t.equal(balanceOf(s, 'available'), 9_850);
  t.equal(balanceOf(s, 'pending'), 0);
  t.equal(balanceOf(s, 'fees'), 150);
  t.equal(balanceOf(s, 'operator_clearing:wave'), -10_000);
  t.same(apply(h, { ...ctx(), type: 'post_payment', source: 'pi_1', clearing: 'operator_clearing:wave', amount: 10_000, fee: 150, availableOn: ctx().at }), [], 'posting the same payment twice does nothing');
});

t.test('a live payment stays pending until its settlement is due', async (t) => {
  const h: LedgerEvent[] = [];
  const day = new Date('2026-01-02T00:00:00Z');
  apply(h, { ...ctx(), type: 'post_payment', source: 'pi_1', clearing: 'card_clearing', amount: 5_000, fee: 145, availableOn: day });
  t.equal(balanceOf(fold(ledgerDecider, h), 'pending'), 4_855);
  t.same(apply(h, { ...ctx(new Date('2026-01-01T12:00:00Z')), type: 'settle_due' }), [], 'not yet');
  t.same(apply(h, { ...ctx(day), type: 'settle_due' }).map((e) => e.data.kind), ['payment_settlement']);
  const s = fold(ledgerDecider, h);
  t.equal(balanceOf(s, 'pending'), 0);
  t.equal(balanceOf(s, 'available'), 4_855);
  t.same(apply(h, { ...ctx(day), type: 'settle_due' }), [], 'settled once');
});

t.test('payout hold, paid, release; holds that would overdraw available are refused', async (t) => {
  const h: LedgerEvent[] = [];
  apply(h, { ...ctx(), type: 'post_payment', source: 'pi_1', clearing: 'operator_clearing:mtn', amount: 1_000, fee: 0, availableOn: ctx().at });
  t.throws(() => apply(h, { ...ctx(), type: 'hold_payout', source: 'po_big', amount: 990, fee: 11 }), { code: 'IKW-BAL-001' });
  apply(h, { ...ctx(), type: 'hold_payout', source: 'po_1', amount: 600, fee: 10 });
  let s = fold(ledgerDecider, h);
  t.equal(balanceOf(s, 'available'), 390);
  t.equal(balanceOf(s, 'reserved'), 610);
  apply(h, { ...ctx(), type: 'complete_payout', source: 'po_1', clearing: 'operator_clearing:mtn' });
  s = fold(ledgerDecider, h);
  t.equal(balanceOf(s, 'reserved'), 0);
  t.equal(balanceOf(s, 'fees'), 10);
  t.same(apply(h, { ...ctx(), type: 'release_payout', source: 'po_1' }), [], 'a paid payout cannot be released');
  apply(h, { ...ctx(), type: 'hold_payout', source: 'po_2', amount: 300, fee: 5 });
  apply(h, { ...ctx(), type: 'release_payout', source: 'po_2' });
  s = fold(ledgerDecider, h);
  t.equal(balanceOf(s, 'available'), 390);
  t.equal(balanceOf(s, 'reserved'), 0);
});

t.test('property: random postings never unbalance the journal nor drive available below zero', async (t) => {
  let seed = 42;
  const rand = (max: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % max;
  };
  for (let run = 0; run < 40; run++) {
    const h: LedgerEvent[] = [];
    const payouts: string[] = [];
    let clock = Date.UTC(2026, 0, 1);
    for (let step = 0; step < 150; step++) {
      clock += rand(3) * 3_600_000;
      const c = ctx(new Date(clock));
      const pick = rand(6);
      try {
        if (pick === 0 || pick === 1) {
          const amount = 1 + rand(50_000);
          apply(h, { ...c, type: 'post_payment', source: `pi_${run}_${step}`, clearing: 'operator_clearing:orange_money', amount, fee: rand(amount + 1), availableOn: new Date(clock + rand(3) * 86_400_000) });
        } else if (pick === 2) {
          const id = `po_${run}_${step}`;
          apply(h, { ...c, type: 'hold_payout', source: id, amount: 1 + rand(40_000), fee: rand(500) });
          payouts.push(id);
        } else if (pick === 3 && payouts.length) {
          apply(h, { ...c, type: 'complete_payout', source: payouts[rand(payouts.length)]!, clearing: 'bank_clearing' });
        } else if (pick === 4 && payouts.length) {
          apply(h, { ...c, type: 'release_payout', source: payouts[rand(payouts.length)]! });
        } else {
          apply(h, { ...c, type: 'settle_due' });
        }
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 'IKW-BAL-001')) throw err;
      }
      const s = fold(ledgerDecider, h);
      if (total(s) !== 0 || balanceOf(s, 'available') < 0 || balanceOf(s, 'reserved') < 0 || balanceOf(s, 'pending') < 0) {
        t.fail(`invariant broken at run ${run} step ${step}: ${JSON.stringify([...s.balances])}`);
        return;
      }
    }
    t.ok(h.every((e) => isBalanced(e.data.lines)), `run ${run}: every entry balances`);
  }
});
