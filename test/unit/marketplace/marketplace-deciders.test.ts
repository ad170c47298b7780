/**
 * The marketplace's deciders: commission rules, sellers, orders (a walk of the transition table),
 * the marketplace funds on the one ledger (split, proportional refunds, settlements, seller payouts), the commission and refund
 * arithmetic, and a fast-check property: random sequences of payments, refunds, settlements and payouts
 * keep every invariant after each step.
 */
import { holdOnSeller, marketplaceOrders, postOrderPayment, refundOrder, settleShare } from '#packages/families/marketplace/marketplace-order/postings.js';
import { completePayout, releasePayout } from '#packages/families/payouts/payout/postings.js';
import fc from 'fast-check';
import t from '#tap';
import { persistentMapWork } from '#packages/core/persistent-map.js';
import { fold, type Fact } from '#packages/core/decider.js';
import { commissionRuleAggregate } from '#packages/families/marketplace/commission-rule/render.js';
import { commissionOn, type CommissionRuleCreated } from '#packages/families/marketplace/commission-rule/events.js';
import { allocateRefund } from '#packages/families/marketplace/marketplace-order/allocation.js';
import type { LedgerAction } from '#packages/ledger/decider.js';
import { balanceOf as fundsBalance, familyState, type LedgerCommand as FundsCommand, type LedgerState as FundsState } from '#packages/ledger/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import { isBalanced } from '#packages/ledger/entry.js';
import type { LedgerEvent as MarketplaceFundsEvent } from '#packages/families/ledger/events.js';
import type { MarketplaceEntry } from '#packages/families/marketplace/marketplace-order/postings.js';
import { ORDER_TRANSITIONS, type OrderCommand, type OrderState } from '#packages/families/marketplace/marketplace-order/decider.js';
import { orderAggregate } from '#packages/families/marketplace/marketplace-order/render.js';
import { ORDER_STATUSES, sellerShares, type OrderCreated, type OrderEvent } from '#packages/families/marketplace/marketplace-order/events.js';
import { sellerAggregate } from '#packages/families/marketplace/marketplace-seller/render.js';
import type { SellerCreated } from '#packages/families/marketplace/marketplace-seller/events.js';
import { isRefused } from '#packages/core/refusal.js';
import { spec } from '../../support/decider-spec.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const stranger = { merchantId: 'acct_2', environment: 'sandbox' as const };
const at = new Date('2026-01-01T00:00:00Z');
let n = 0;
const ids = () => `e${++n}`;
const ref = { ...owner, currency: 'xof' };

t.test('commission: basis points rounded half up, plus the fixed fee, never more than the line', async (t) => {
  t.equal(commissionOn({ percentBasisPoints: 1000, fixedFeeMinor: 0 }, 10_005), 1_001);
  t.equal(commissionOn({ percentBasisPoints: 1000, fixedFeeMinor: 0 }, 10_004), 1_000);
  t.equal(commissionOn({ percentBasisPoints: 250, fixedFeeMinor: 30 }, 1_000), 55);
  t.equal(commissionOn({ percentBasisPoints: 0, fixedFeeMinor: 500 }, 100), 100, 'capped at the line');
  t.equal(commissionOn({ percentBasisPoints: 10_000, fixedFeeMinor: 0 }, 999_999_999_999), 999_999_999_999, 'exact at the largest amount');
  t.equal(commissionOn({ percentBasisPoints: 3333, fixedFeeMinor: 0 }, 999_999_999_999), 333_300_000_000, '333,299,999,999.67 rounds up');
});

t.test('allocateRefund: proportional, whole, never beyond what a party has left', async (t) => {
  t.same(allocateRefund([4_800, 3_200, 2_000], 1_000), [480, 320, 200]);
  t.same(allocateRefund([1, 1], 1), [1, 0], 'a tie goes to the earlier party');
  t.same(allocateRefund([5, 0, 3], 8), [5, 0, 3], 'everything that remains: all of each');
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 6 }), fc.double({ min: 0, max: 1, noNaN: true }), (remaining, f) => {
      const total = remaining.reduce((s, r) => s + r, 0);
      const amount = Math.floor(total * f);
      const parts = allocateRefund(remaining, amount);
      return parts.reduce((s, p) => s + p, 0) === amount && parts.every((p, i) => p >= 0 && p <= remaining[i]! && Math.abs(p - (amount * remaining[i]!) / Math.max(total, 1)) < 1);
    }),
  );
});

t.test('commission rules: created once, updated, an update that changes nothing appends nothing', async (t) => {
  const rules = spec(commissionRuleAggregate);
  const rule: CommissionRuleCreated = { id: 'r1', ...owner, name: 'Std', percentBasisPoints: 100, fixedFeeMinor: 0, currency: 'xof', isActive: true, createdAt: at.toISOString() };
  const created = rules.history({ type: 'create', rule });
  rules.given(created).when({ type: 'create', rule }).thenThrows(t, 'IKW-RES-003');
  rules
    .given(created)
    .when({ type: 'update', owner, at, changes: { isActive: false } })
    .thenMatch(t, [{ type: 'commission_rule.updated', data: { isActive: false, percentBasisPoints: 100 } }]);
  rules
    .given(created)
    .when({ type: 'update', owner, at, changes: { percentBasisPoints: 100 } })
    .thenNothing(t);
  rules
    .given(created)
    .when({ type: 'update', owner: stranger, at, changes: { isActive: false } })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'commissionRuleId' });
  rules
    .given([])
    .when({ type: 'update', owner, at, changes: { isActive: false } })
    .thenThrows(t, 'IKW-RES-001');
});

t.test('sellers: one per sellerId; the settlement schedule changes', async (t) => {
  const sellers = spec(sellerAggregate);
  const seller: SellerCreated = { id: 's1', ...owner, sellerId: 'shop', displayName: 'Shop', settlementMode: 'rolling', settlementDelayDays: 7, createdAt: at.toISOString() };
  const created = sellers.history({ type: 'create', seller });
  sellers.given(created).when({ type: 'create', seller }).thenThrows(t, { code: 'IKW-MKT-001', param: 'sellerId' });
  sellers
    .given(created)
    .when({ type: 'update_settlement', owner, at, settlement: { settlementMode: 'manual' } })
    .thenMatch(t, [{ type: 'marketplace_seller.settlement_updated', data: { settlementMode: 'manual', settlementDelayDays: 7 } }]);
  sellers
    .given(created)
    .when({ type: 'update_settlement', owner, at, settlement: { settlementDelayDays: 7 } })
    .thenNothing(t);
  sellers
    .given(created)
    .when({ type: 'update_settlement', owner: stranger, at, settlement: { settlementMode: 'manual' } })
    .thenThrows(t, 'IKW-RES-001');
});

const order: OrderCreated = {
  id: 'o1',
  ...owner,
  currency: 'xof',
  transactionCountry: 'SN',
  idempotencyKey: null,
  buyerName: null,
  buyerEmail: null,
  paymentIntentId: 'pi_1',
  lines: [
    { sellerId: 'a', sellerRef: 'ra', description: null, amountMinor: 6_000, commissionRuleId: 'r', commissionMinor: 1_200 },
    { sellerId: 'b', sellerRef: 'rb', description: null, amountMinor: 4_000, commissionRuleId: 'r', commissionMinor: 800 },
  ],
  amountMinor: 10_000,
  commissionMinor: 2_000,
  createdAt: at.toISOString(),
};

t.test('orders: the transition table, walked', async (t) => {
  const orders = spec(orderAggregate);
  const created = orders.history({ type: 'create', order });
  const paid = orders.given(created).history({ type: 'mark_paid', owner, at, fee: 100 });
  const partly = orders.given(paid).history({ type: 'refund', owner, at, refundId: 'f1', amountMinor: 1, reason: null });
  const refunded = orders.given(paid).history({ type: 'refund', owner, at, refundId: 'f1', amountMinor: 10_000, reason: null });
  const canceled = orders.given(created).history({ type: 'cancel', owner, at });
  const byStatus: Record<string, Fact<OrderEvent>[]> = { requires_payment: created, paid, partially_refunded: partly, refunded, canceled };
  t.same(Object.keys(byStatus).sort(), [...ORDER_STATUSES].sort(), 'every status is reached');
  const commands: Record<keyof typeof ORDER_TRANSITIONS, OrderCommand> = {
    mark_paid: { type: 'mark_paid', owner, at, fee: 1 },
    refund: { type: 'refund', owner, at, refundId: 'f9', amountMinor: 1, reason: null },
    cancel: { type: 'cancel', owner, at },
  };
  const NEXT: Record<keyof typeof ORDER_TRANSITIONS, string> = { mark_paid: 'paid', refund: 'partially_refunded', cancel: 'canceled' };
  for (const [name, command] of Object.entries(commands) as [keyof typeof ORDER_TRANSITIONS, OrderCommand][]) {
    for (const status of ORDER_STATUSES) {
      const when = orders.given(byStatus[status]!).when(command);
      if ((ORDER_TRANSITIONS[name] as readonly string[]).includes(status)) when.thenState((s: OrderState) => t.equal(s.status, NEXT[name], `${name} acts in ${status}`));
      else if (name === 'mark_paid' || (name === 'cancel' && status === 'canceled')) when.thenNothing(t, `${name} in ${status} changes nothing`);
      else when.thenThrows(t, 'IKW-MKT-004', `${name} refused in ${status}`);
    }
  }
  orders.given(paid).when({ type: 'refund', owner, at, refundId: 'f2', amountMinor: 10_001, reason: null }).thenThrows(t, { code: 'IKW-MKT-005', param: 'amount' });
  orders.given(partly).when({ type: 'refund', owner, at, refundId: 'f1', amountMinor: 5, reason: null }).thenNothing(t, 'the same refund again');
  orders.given(paid).when({ type: 'refund', owner: stranger, at, refundId: 'f3', amountMinor: 1, reason: null }).thenThrows(t, { code: 'IKW-RES-001', param: 'orderId' });
});

const funds = (c: LedgerAction, when = at) => ({ ...c, ...ref, at: when, newEntryId: ids }) as FundsCommand;
const paymentOf = {
  orderId: 'o1',
  clearing: 'operator_clearing:orange_money',
  amount: 10_000,
  fee: 150,
  shares: sellerShares(order.lines).map((s) => ({ sellerRef: s.sellerRef, sellerId: s.sellerId, amount: s.amountMinor })),
  commission: 2_000,
};
const payment = funds(postOrderPayment(paymentOf));

t.test('funds: the split balances, is posted once, and a refund takes settled shares from available', async (t) => {
  const ledger = spec(familiesLedger.decider);
  const paid = ledger
    .given([])
    .when(payment)
    .thenState((s) => {
      t.equal(fundsBalance(s, 'seller_pending:ra'), 4_800);
      t.equal(fundsBalance(s, 'seller_pending:rb'), 3_200);
      t.equal(fundsBalance(s, 'commission'), 2_000 - 150);
      t.equal(fundsBalance(s, 'fees'), 150);
      t.equal(fundsBalance(s, 'operator_clearing:orange_money'), -10_000);
    });
  ledger.given(paid).when(payment).thenNothing(t, 'posted once');
  const settled = ledger.given(paid).history(funds(settleShare({ orderId: 'o1', sellerRef: 'ra' })));
  ledger
    .given(settled)
    .when(funds(settleShare({ orderId: 'o1', sellerRef: 'ra' })))
    .thenNothing(t, 'settled once');
  ledger
    .given(settled)
    .when(funds(refundOrder({ refundId: 'f1', orderId: 'o1', amount: 5_000 })))
    .thenMatch(t, [
      {
        type: 'ledger.entry_posted',
        data: {
          kind: 'order_refund',
          commission: 1_000,
          reversals: [
            { sellerRef: 'ra', amount: 2_400, fromPending: 0 },
            { sellerRef: 'rb', amount: 1_600, fromPending: 1_600 },
          ],
        },
      },
    ]);
  // The seller has been paid out: their available funds no longer cover their share of a refund.
  const paidOut = ledger.given(settled).history(funds(holdOnSeller({ source: 'po_9', amount: 4_800, fee: 0, seller: { sellerRef: 'ra', sellerId: 'a' } })));
  ledger
    .given(paidOut)
    .when(funds(refundOrder({ refundId: 'f2', orderId: 'o1', amount: 100 })))
    .thenThrows(t, { code: 'IKW-MKT-006', param: 'amountMinor' });
  t.throws(() => familiesLedger.decider.decide(funds(postOrderPayment({ ...paymentOf, orderId: 'o2', commission: 1 })), fold(familiesLedger.decider, [])), 'shares and commission must add up');
});

t.test('funds: a payout to a seller is held from available, then paid or given back, once', async (t) => {
  const ledger = spec(familiesLedger.decider);
  const settled = ledger.given([]).history(payment, funds(settleShare({ orderId: 'o1', sellerRef: 'ra' })));
  const seller = { sellerRef: 'ra', sellerId: 'a', amount: 4_000 };
  ledger
    .given(settled)
    .when(funds(holdOnSeller({ source: 'po_1', amount: 4_701, fee: 100, seller })))
    .thenThrows(t, { code: 'IKW-MKT-007', param: 'amountMinor' });
  const held = ledger
    .given(settled)
    .when(funds(holdOnSeller({ source: 'po_1', amount: seller.amount, fee: 100, seller })))
    .thenState((s) => {
      t.equal(fundsBalance(s, 'seller_available:ra'), 700);
      t.equal(fundsBalance(s, 'seller_payouts'), 4_100);
    });
  ledger
    .given(held)
    .when(funds(holdOnSeller({ source: 'po_1', amount: seller.amount, fee: 100, seller })))
    .thenNothing(t, 'held once');
  const paid = ledger
    .given(held)
    .when(funds(completePayout('po_1', 'operator_clearing:orange_money')))
    .thenState((s) => {
      t.equal(fundsBalance(s, 'seller_payouts'), 0);
      t.equal(fundsBalance(s, 'fees'), 150 + 100);
    });
  ledger
    .given(paid)
    .when(funds(releasePayout('po_1')))
    .thenNothing(t, 'a paid payout gives nothing back');
  ledger
    .given(held)
    .when(funds(releasePayout('po_1')))
    .thenState((s) => t.equal(fundsBalance(s, 'seller_available:ra'), 4_800, 'all of it back'));
});

/**
 * The property the issue asks for: whatever sequence of payments, refunds (partial, full, too
 * large), and settlements runs, after each step every entry balances, Σ shares + commission =
 * amount paid for every order, refunds never exceed it, and no seller's funds go below zero.
 */
t.test('property: random sequences keep the invariants after each step', async (t) => {
  const step = fc.oneof(
    fc.record({
      kind: fc.constant('pay' as const),
      order: fc.integer({ min: 0, max: 3 }),
      amounts: fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 1, maxLength: 4 }),
      bp: fc.integer({ min: 0, max: 10_000 }),
      fixed: fc.integer({ min: 0, max: 500 }),
      fee: fc.integer({ min: 0, max: 300 }),
    }),
    fc.record({ kind: fc.constant('refund' as const), order: fc.integer({ min: 0, max: 3 }), fraction: fc.double({ min: 0, max: 1.2, noNaN: true }) }),
    fc.record({ kind: fc.constant('settle' as const), order: fc.integer({ min: 0, max: 3 }), seller: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('payout' as const), seller: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 1, max: 30_000 }), fee: fc.integer({ min: 0, max: 200 }), paid: fc.boolean() }),
  );
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      let fundsEvents: MarketplaceFundsEvent[] = [];
      const orders = new Map<string, Fact<OrderEvent>[]>();
      for (const [i, s] of steps.entries()) {
        const orderId = `o${'order' in s ? s.order : 0}`;
        const history = orders.get(orderId) ?? [];
        const orderState = fold(orderAggregate, history);
        let decidedOrder: Fact<OrderEvent>[] = [];
        let decidedFunds: MarketplaceFundsEvent[];
        try {
          const fundsState = fold(familiesLedger.decider, fundsEvents);
          if (s.kind === 'pay') {
            if (orderState.order) continue;
            const lines = s.amounts.map((amountMinor, k) => ({
              sellerId: `s${k % 3}`,
              sellerRef: `r${k % 3}`,
              description: null,
              amountMinor,
              commissionRuleId: 'r',
              commissionMinor: commissionOn({ percentBasisPoints: s.bp, fixedFeeMinor: s.fixed }, amountMinor),
            }));
            const amountMinor = lines.reduce((a, l) => a + l.amountMinor, 0);
            const commissionMinor = lines.reduce((a, l) => a + l.commissionMinor, 0);
            const created = orderAggregate.decide({ type: 'create', order: { ...order, id: orderId, lines, amountMinor, commissionMinor } }, orderState);
            const createdState = fold(orderAggregate, created);
            decidedOrder = [...created, ...orderAggregate.decide({ type: 'mark_paid', owner, at, fee: Math.min(s.fee, amountMinor) }, createdState)];
            const shares = sellerShares(lines).map((x) => ({ sellerRef: x.sellerRef, sellerId: x.sellerId, amount: x.amountMinor }));
            decidedFunds = familiesLedger.decider.decide(funds(postOrderPayment({ orderId, clearing: 'card_clearing', amount: amountMinor, fee: Math.min(s.fee, amountMinor), shares, commission: commissionMinor })), fundsState);
          } else if (s.kind === 'refund') {
            if (!orderState.order) continue;
            const amountMinor = Math.max(1, Math.floor(orderState.order.amountMinor * s.fraction));
            const refundId = `f${i}`;
            // As the service does: both decided on the same states, appended together or not at all.
            decidedOrder = orderAggregate.decide({ type: 'refund', owner, at, refundId, amountMinor, reason: null }, orderState);
            decidedFunds = familiesLedger.decider.decide(funds(refundOrder({ refundId, orderId, amount: amountMinor })), fundsState);
          } else if (s.kind === 'settle') {
            decidedFunds = familiesLedger.decider.decide(funds(settleShare({ orderId, sellerRef: `r${s.seller}` })), fundsState);
          } else {
            // A payout held, then paid or given back.
            const payoutId = `po_${i}`;
            const seller = { sellerRef: `r${s.seller}`, sellerId: `s${s.seller}`, amount: s.amount };
            const held = familiesLedger.decider.decide(funds(holdOnSeller({ source: payoutId, amount: seller.amount, fee: s.fee, seller })), fundsState);
            const after = held.reduce(familiesLedger.decider.evolve, fundsState);
            const final: LedgerAction = s.paid ? completePayout(payoutId, 'bank_clearing') : releasePayout(payoutId);
            decidedFunds = [...held, ...familiesLedger.decider.decide(funds(final), after)];
          }
        } catch (err) {
          if (!isRefused(err) || !['IKW-MKT-004', 'IKW-MKT-005', 'IKW-MKT-006', 'IKW-MKT-007'].includes(err.code)) throw err;
          continue;
        }
        orders.set(orderId, [...history, ...decidedOrder]);
        fundsEvents = [...fundsEvents, ...decidedFunds];
        checkInvariants(orders, fundsEvents);
      }
    }),
    { numRuns: 300 },
  );
  t.pass('300 random sequences');
});

function checkInvariants(orders: Map<string, Fact<OrderEvent>[]>, fundsEvents: MarketplaceFundsEvent[]): void {
  const state: FundsState = fold(familiesLedger.decider, fundsEvents);
  for (const e of fundsEvents) if (!isBalanced(e.data.lines)) throw new Error(`unbalanced ${e.data.kind}`);
  let total = 0;
  for (const [account, amount] of state.balances) {
    total += amount;
    if (account.startsWith('seller_') && amount < 0) throw new Error(`${account} below zero: ${amount}`);
  }
  if (total !== 0) throw new Error('the ledger does not sum to zero');
  if (fundsBalance(state, 'seller_payouts') !== 0) throw new Error('a settled payout left money in flight');
  for (const [id, events] of orders) {
    const o = fold(orderAggregate, events);
    if (!o.order) continue;
    const shares = sellerShares(o.order.lines).reduce((s, x) => s + x.amountMinor, 0);
    if (shares + o.order.commissionMinor !== o.order.amountMinor) throw new Error(`order ${id}: shares + commission ≠ amount`);
    if (o.refundedMinor > o.order.amountMinor) throw new Error(`order ${id}: refunded beyond the amount`);
    const refunded = fundsEvents.filter((e) => e.data.kind === 'order_refund' && (e.data as MarketplaceEntry).orderId === id).reduce((s, e) => s + e.data.amount, 0);
    if (refunded !== o.refundedMinor) throw new Error(`order ${id}: the funds and the order disagree on the refunds`);
    const money = familyState(state, marketplaceOrders).get(id);
    if (money && money.shares.some((s) => s.unrefunded < 0 || s.pending < 0 || s.pending > s.unrefunded)) throw new Error(`order ${id}: a share out of bounds`);
  }
}

t.test("funds: folding a marketplace's orders costs work linear in them; states decided on stay unchanged", async (t) => {
  const workOf = (n: number) => {
    const before = persistentMapWork();
    let state = familiesLedger.decider.initialState;
    for (let i = 0; i < n; i++) for (const e of familiesLedger.decider.decide(funds(postOrderPayment({ ...paymentOf, orderId: `o${i}` })), state)) state = familiesLedger.decider.evolve(state, e);
    return { work: persistentMapWork() - before, state };
  };
  const small = workOf(2_000);
  const large = workOf(8_000);
  t.ok(small.work > 2_000, 'orders, entries posted and balances are kept in persistent maps');
  // Linear (times a logarithm) is about 4.5×; a copy of every order per event is 16×.
  t.ok(large.work < 6 * small.work, `4× the orders, ${(large.work / small.work).toFixed(2)}× the work`);
  t.equal(familyState(large.state, marketplaceOrders).size, 8_000);
  const earlier = large.state;
  const later = familiesLedger.decider.decide(funds(postOrderPayment({ ...paymentOf, orderId: 'o-last' })), earlier).reduce((s, e) => familiesLedger.decider.evolve(s, e), earlier);
  t.equal(familyState(later, marketplaceOrders).size, 8_001);
  t.equal(familyState(earlier, marketplaceOrders).size, 8_000, 'the state decided on is unchanged');
  t.notOk(earlier.posted.has('order_payment:o-last'));
});
