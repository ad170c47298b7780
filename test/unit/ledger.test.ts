import { fundEscrowFromPayment, refundEscrow } from '#packages/families/escrow/postings.js';
import { moveCampaignFunds } from '#packages/families/funding/postings.js';
import { postOrderPayment, refundOrder } from '#packages/families/marketplace/marketplace-order/postings.js';
import { postPayment, settleDue } from '#packages/families/payments/payment-intent/postings.js';
import { completePayout, holdOnAvailable, releasePayout } from '#packages/families/payouts/payout/postings.js';
import { endRailRefund } from '#packages/families/payments/rail-refund/postings.js';
import { refundPayment } from '#packages/families/billing/refund/postings.js';
import t from '#tap';
import { isRefused } from '#packages/core/refusal.js';
import { assembleChart } from '#packages/ledger/chart.js';
import { balanceOf, familyState, Ledger, type LedgerCommand, type LedgerState } from '#packages/ledger/decider.js';
import { railRefundsInFlight } from '#packages/families/payments/rail-refund/postings.js';
import { isBalanced, type Posting } from '#packages/ledger/entry.js';
import { fold } from '#packages/core/decider.js';
import type { LedgerEvent } from '#packages/families/ledger/events.js';
import type { AnyFamily } from '#packages/families/family.js';
import { CHART, FAMILIES } from '#packages/families/index.js';
import { spec } from '../support/decider-spec.js';
import { familiesLedger } from '../support/ledger.js';
import { readLedgerLog } from '../support/ledger-log.js';

const ledger = spec(familiesLedger.decider);
let n = 0;
const ctx = (at = new Date('2026-01-01T00:00:00Z')) => ({ merchantId: 'acct_1', environment: 'sandbox' as const, currency: 'XOF', at, newEntryId: () => `txn_${++n}` });
const kinds = (events: LedgerEvent[]) => events.map((e) => e.data.kind);

function total(state: LedgerState): number {
  let sum = 0;
  for (const v of state.balances.values()) sum += v;
  return sum;
}

t.test('a sandbox payment credits amount − fee and is available at once', async (t) => {
  const payment: LedgerCommand = { ...ctx(), ...postPayment({ source: 'pi_1', clearing: 'operator_clearing:wave', amount: 10_000, fee: 150, availableOn: ctx().at }) };
  const posted = ledger
    .given()
    .when(payment)
    .thenState((s, decided) => {
      t.same(kinds(decided), ['payment', 'payment_settlement']);
      t.equal(balanceOf(s, 'available'), 9_850);
      t.equal(balanceOf(s, 'pending'), 0);
      t.equal(balanceOf(s, 'fees'), 150);
      t.equal(balanceOf(s, 'operator_clearing:wave'), -10_000);
    });
  ledger.given(posted).when(payment).thenNothing(t, 'posting the same payment twice does nothing');
});

t.test('a live payment stays pending until its settlement is due', async (t) => {
  const day = new Date('2026-01-02T00:00:00Z');
  const settle = (at: Date): LedgerCommand => ({ ...ctx(at), ...settleDue() });
  const posted = ledger
    .given()
    .when({ ...ctx(), ...postPayment({ source: 'pi_1', clearing: 'card_clearing', amount: 5_000, fee: 145, availableOn: day }) })
    .thenState((s) => t.equal(balanceOf(s, 'pending'), 4_855));
  ledger
    .given(posted)
    .when(settle(new Date('2026-01-01T12:00:00Z')))
    .thenNothing(t, 'not yet');
  const settled = ledger
    .given(posted)
    .when(settle(day))
    .thenState((s, decided) => {
      t.same(kinds(decided), ['payment_settlement']);
      t.equal(balanceOf(s, 'pending'), 0);
      t.equal(balanceOf(s, 'available'), 4_855);
    });
  ledger.given(settled).when(settle(day)).thenNothing(t, 'settled once');
});

t.test('payout hold, paid, release; holds that would overdraw available are refused', async (t) => {
  const funded = ledger.history({ ...ctx(), ...postPayment({ source: 'pi_1', clearing: 'operator_clearing:mtn', amount: 1_000, fee: 0, availableOn: ctx().at }) });
  ledger
    .given(funded)
    .when({ ...ctx(), ...holdOnAvailable({ source: 'po_big', amount: 990, fee: 11 }) })
    .thenThrows(t, 'IKW-BAL-001');
  const held = ledger
    .given(funded)
    .when({ ...ctx(), ...holdOnAvailable({ source: 'po_1', amount: 600, fee: 10 }) })
    .thenState((s) => {
      t.equal(balanceOf(s, 'available'), 390);
      t.equal(balanceOf(s, 'reserved'), 610);
    });
  const paid = ledger
    .given(held)
    .when({ ...ctx(), ...completePayout('po_1', 'operator_clearing:mtn') })
    .thenState((s) => {
      t.equal(balanceOf(s, 'reserved'), 0);
      t.equal(balanceOf(s, 'fees'), 10);
    });
  ledger
    .given(paid)
    .when({ ...ctx(), ...releasePayout('po_1') })
    .thenNothing(t, 'a paid payout cannot be released');
  const released = ledger.given(paid).history({ ...ctx(), ...holdOnAvailable({ source: 'po_2', amount: 300, fee: 5 }) }, { ...ctx(), ...releasePayout('po_2') });
  const s = ledger.state(released);
  t.equal(balanceOf(s, 'available'), 390);
  t.equal(balanceOf(s, 'reserved'), 0);
});

t.test(
  "money back to a payer through a rail's clearing account: a payment's refund, a contribution or escrow funds given back wait on the rail's refunds in flight; a marketplace order's refund, which does not follow a rail's answer yet, is refused (IKW-PRV-006)",
  async (t) => {
    const live = (extra: object) => ({ ...ctx(), environment: 'live' as const, ...extra }) as LedgerCommand;
    for (const clearing of ['rail_clearing:pawapay', 'operator_clearing:orange'] as const) {
      const refused = clearing.startsWith('rail_clearing:');
      const check = (history: LedgerEvent[], command: LedgerCommand, what: string) => {
        if (refused) ledger.given(history).when(command).thenThrows(t, 'IKW-PRV-006');
        else
          ledger
            .given(history)
            .when(command)
            .thenState((_s, decided) => t.equal(decided.length, 1, `${what} through ${clearing} posts as before`));
      };
      const paid = ledger.history(live(postPayment({ source: 'pi_1', clearing, amount: 10_000, fee: 0, availableOn: ctx().at })));
      const refund = live(refundPayment({ source: 're_1', clearing, amount: 1_000 }));
      ledger
        .given(paid)
        .when(refund)
        .thenState((_s, decided) => {
          const leg = decided[0]!.data.lines.find((l) => l.amount > 0)!.account;
          t.equal(leg, refused ? 'rail_refunds:pawapay' : clearing, `a payment refund through ${clearing} goes to ${leg}`);
        });
      const escrowed = ledger.history(live(fundEscrowFromPayment({ source: 'pi_2', clearing, amount: 10_000, fee: 0, contract: 'ct_1' })));
      ledger
        .given(escrowed)
        .when(live(refundEscrow({ source: 'er_1', contract: 'ct_1', amount: 1_000, to: clearing })))
        .thenState((s, decided) => {
          const leg = decided[0]!.data.lines.find((l) => l.amount > 0)!.account;
          t.equal(leg, refused ? 'rail_refunds:pawapay' : clearing, `an escrow refund through ${clearing} goes to ${leg}`);
          t.equal(familyState(s, railRefundsInFlight).has('er_1'), refused, 'waiting for the rail’s answer when it went through one');
        });
      const ordered = ledger.history(live(postOrderPayment({ orderId: 'ord_1', clearing, amount: 10_000, fee: 0, shares: [], commission: 10_000 })));
      check(ordered, live(refundOrder({ refundId: 'or_1', orderId: 'ord_1', amount: 1_000 })), 'an order refund');
      const contributed = ledger.history(live(moveCampaignFunds('k_1', [{ kind: 'contribution', source: 'c_1', clearing, amount: 1_000 }])));
      ledger
        .given(contributed)
        .when(live(moveCampaignFunds('k_1', [{ kind: 'refund', source: 'c_1', clearing, amount: 1_000 }])))
        .thenState((s, decided) => {
          const leg = decided[0]!.data.lines.find((l) => l.amount > 0)!.account;
          t.equal(leg, refused ? 'rail_refunds:pawapay' : clearing, `a contribution given back through ${clearing} goes to ${leg}`);
          t.equal(familyState(s, railRefundsInFlight).has('c_1'), refused, 'waiting for the rail’s answer when it went through one');
        });
    }
  },
);

t.test("a rail's answer ends a refund in flight once: sent out through its clearing account, or reversed back where it came from", async (t) => {
  const live = (extra: object) => ({ ...ctx(), environment: 'live' as const, ...extra }) as LedgerCommand;
  const clearing = 'rail_clearing:pawapay';
  const refunded = ledger.history(
    live(postPayment({ source: 'pi_1', clearing, amount: 10_000, fee: 300, availableOn: ctx().at })),
    live(refundPayment({ source: 're_1', clearing, amount: 4_000 })),
    live(refundPayment({ source: 're_2', clearing, amount: 2_000 })),
  );
  const held = ledger.state(refunded);
  t.equal(balanceOf(held, 'available'), 9_700 - 6_000, 'held out of the balance');
  t.equal(balanceOf(held, 'rail_refunds:pawapay'), 6_000, 'on the rail’s refunds in flight');
  t.equal(balanceOf(held, clearing), -10_000, 'not out of the rail’s wallet yet');
  const ended = ledger.given(refunded).history(live(endRailRefund({ source: 're_1', outcome: 'sent' })), live(endRailRefund({ source: 're_2', outcome: 'returned' })));
  const s = ledger.state(ended);
  t.equal(balanceOf(s, 'rail_refunds:pawapay'), 0, 'nothing left in flight');
  t.equal(balanceOf(s, clearing), -6_000, 'the sent refund left through the rail’s clearing account');
  t.equal(balanceOf(s, 'available'), 9_700 - 4_000, 'the returned one is back on the balance');
  const kinds = ended.slice(refunded.length).map((e) => e.data.kind);
  t.same(kinds, ['rail_refund_sent', 'refund_reversal']);
  for (const again of ['sent', 'returned'] as const) {
    for (const source of ['re_1', 're_2'])
      ledger
        .given(ended)
        .when(live(endRailRefund({ source, outcome: again })))
        .thenNothing(t, `${source} told again (${again}): nothing`);
  }
});

t.test('property: random postings never unbalance the journal nor drive available below zero', async (t) => {
  let seed = 42;
  const rand = (max: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % max;
  };
  for (let run = 0; run < 40; run++) {
    let h: LedgerEvent[] = [];
    const apply = (command: LedgerCommand) => {
      h = ledger.given(h).history(command);
    };
    const payouts: string[] = [];
    let clock = Date.UTC(2026, 0, 1);
    for (let step = 0; step < 150; step++) {
      clock += rand(3) * 3_600_000;
      const c = ctx(new Date(clock));
      const pick = rand(6);
      try {
        if (pick === 0 || pick === 1) {
          const amount = 1 + rand(50_000);
          apply({ ...c, ...postPayment({ source: `pi_${run}_${step}`, clearing: 'operator_clearing:orange_money', amount, fee: rand(amount + 1), availableOn: new Date(clock + rand(3) * 86_400_000) }) });
        } else if (pick === 2) {
          const id = `po_${run}_${step}`;
          apply({ ...c, ...holdOnAvailable({ source: id, amount: 1 + rand(40_000), fee: rand(500) }) });
          payouts.push(id);
        } else if (pick === 3 && payouts.length) {
          apply({ ...c, ...completePayout(payouts[rand(payouts.length)]!, 'bank_clearing') });
        } else if (pick === 4 && payouts.length) {
          apply({ ...c, ...releasePayout(payouts[rand(payouts.length)]!) });
        } else {
          apply({ ...c, ...settleDue() });
        }
      } catch (err) {
        if (!isRefused(err, 'IKW-BAL-001')) throw err;
      }
      const s = ledger.state(h);
      if (total(s) !== 0 || balanceOf(s, 'available') < 0 || balanceOf(s, 'reserved') < 0 || balanceOf(s, 'pending') < 0) {
        t.fail(`invariant broken at run ${run} step ${step}: ${JSON.stringify([...s.balances])}`);
        return;
      }
    }
    t.ok(
      h.every((e) => isBalanced(e.data.lines)),
      `run ${run}: every entry balances`,
    );
  }
});

t.test('the chart of accounts: every account the postings name is of a kind exactly one family declares', async (t) => {
  // The accounts every family's postings named in the scripted scenario of test/fixtures/ledger-log.json.
  const posted = new Set(
    readLedgerLog()
      .events.filter((e) => e.type === 'ledger.entry_posted')
      .flatMap((e) => (e.data.lines as { account: string }[]).map((l) => familiesLedger.kindOf(l.account))),
  );
  t.ok(posted.has('available') && posted.has('escrow') && posted.has('campaign') && posted.has('seller_payouts'), [...posted].join(', '));
  const declaredBy = new Map<string, string[]>();
  for (const family of FAMILIES as readonly AnyFamily[]) for (const kind of Object.keys(family.accounts ?? {})) declaredBy.set(kind, [...(declaredBy.get(kind) ?? []), family.name]);
  for (const kind of posted) t.same(declaredBy.get(kind)?.length, 1, `${kind} is declared by ${declaredBy.get(kind)?.join(', ') ?? 'no family'}`);
  for (const [kind, owners] of declaredBy) t.same(owners.length, 1, `${kind} is declared once`);
  t.same(Object.keys(CHART).sort(), [...declaredBy.keys()].sort(), "the assembled chart is every family's accounts");
});

t.test('an account of no kind of the chart is a bug, thrown; two families declaring one kind are refused', async (t) => {
  t.throws(() => familiesLedger.kindOf('savings:acct_1'), /Account 'savings:acct_1' is not in the chart of accounts/);
  t.throws(() => familiesLedger.mayGoNegative('savings'), /Account 'savings' is not in the chart of accounts/);
  t.same([familiesLedger.mayGoNegative('commission'), familiesLedger.mayGoNegative('escrow:esc_1'), familiesLedger.mayGoNegative('rail_clearing:pawapay')], [true, false, true], "each kind's rule, whoever declares it");
  const kind = { owner: 'merchant', mayGoNegative: false, shownAs: 'x', holds: 'x' } as const;
  t.throws(
    () =>
      assembleChart([
        { owner: 'a', accounts: { escrow: kind } },
        { owner: 'b', accounts: { escrow: kind } },
      ]),
    /a and b both declare the ledger account escrow/,
  );
  t.throws(() => new Ledger({ savings: kind }, []).mayGoNegative('available'), /Account 'available' is not in the chart of accounts/, 'a ledger knows the chart it was made with, no other');
});

t.test('the engine knows no family: any recipe posts balanced integer entries, once per kind:source, within the chart, or nothing', async (t) => {
  const post = (...postings: Posting[]): LedgerCommand => ({ ...ctx(), type: 'post', recipe: (book) => postings.forEach((p) => book.post(p)) });
  const move = (kind: string, source: string, amount: number): Posting => ({
    kind,
    source,
    lines: [
      { account: 'card_clearing', amount: -amount },
      { account: 'available', amount },
    ],
    amount,
    fee: 0,
    net: amount,
    refs: { note: 'a family field' },
  });
  const [entry] = familiesLedger.decider.decide(post(move('gift', 'g_1', 500)), familiesLedger.decider.initialState);
  t.same(Object.keys(entry!.data), ['entryId', 'kind', 'source', 'merchantId', 'environment', 'currency', 'lines', 'amount', 'fee', 'net', 'note', 'availableOn', 'postedAt'], "a family's refs are stored beside the amounts");
  const state = fold(familiesLedger.decider, [entry!]);
  t.throws(() => familiesLedger.decider.decide(post({ ...move('gift', 'g_2', 1), lines: [{ account: 'available', amount: 1 }] }), state), /Unbalanced gift entry for g_2/);
  t.throws(
    () =>
      familiesLedger.decider.decide(
        post({
          ...move('gift', 'g_2', 1),
          lines: [
            { account: 'available', amount: 0.5 },
            { account: 'card_clearing', amount: -0.5 },
          ],
        }),
        state,
      ),
    /Unbalanced/,
    'integers only',
  );
  t.throws(() => familiesLedger.decider.decide(post(move('gift', 'g_1', 1)), state), /A gift entry for g_1 is already posted/);
  t.throws(() => familiesLedger.decider.decide(post(move('gift', 'g_3', 100), move('gift', 'g_4', -700)), state), /Account available would go below zero \(-100\)/, 'nothing of the recipe is appended');
  t.same(familiesLedger.decider.decide({ ...ctx(), type: 'complete', source: 'po_none', to: 'bank_clearing' }, state), [], 'no hold: nothing to complete');
  t.same(familiesLedger.decider.decide({ ...ctx(), type: 'release', source: 'po_none' }, state), [], 'no hold: nothing to release');
  t.throws(() => familiesLedger.decider.decide({ ...ctx(), type: 'post', recipe: (book) => book.holdFunds(move('gift', 'g_5', 1)) }, state), /gift is not a registered kind of hold/);
});

t.test('families register kinds of hold and reducers once: twice is refused when the ledger is made', async (t) => {
  const hold = { opens: 'x_hold', endedBy: [], release: () => null };
  t.throws(
    () =>
      new Ledger(CHART, [
        { owner: 'a', part: { holds: [hold] } },
        { owner: 'b', part: { holds: [hold] } },
      ]),
    /The hold kind x_hold is registered twice \(b\)/,
  );
  const reducer = { name: 'x.state', initial: 0, evolve: (s: number) => s };
  t.throws(
    () =>
      new Ledger(CHART, [
        { owner: 'a', part: { reducers: [reducer] } },
        { owner: 'b', part: { reducers: [reducer] } },
      ]),
    /a and b both register the ledger reducer x.state/,
  );
  // A refused ledger changes no other: the family list's still posts.
  t.ok(familiesLedger.decider.decide({ ...ctx(), ...postPayment({ source: 'pi_9', clearing: 'card_clearing', amount: 100, fee: 0, availableOn: ctx().at }) }, familiesLedger.decider.initialState).length > 0);
});
