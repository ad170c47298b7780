/**
 * The marketplace's invariants through the real server, under random sequences of operations
 * (fast-check): orders paid, refunds of any size (some too large), settlements after random
 * delays, payouts to sellers (some failing). After each step: every order's shares + commission =
 * its amount, its refunds never exceed it and add up, no seller's funds are negative, and all the
 * money paid in is accounted for (sellers, commission, fees, refunds, payouts).
 */
import fc from 'fast-check';
import t from '#tap';
import { createOrder, createRule, createSeller, mkt, payOrder } from '../../support/marketplace.js';
import { mobileMoney } from '../../support/payouts.js';
import { advance, startPaymentsService, type TestService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const DAY = 86_400_000;
const SELLERS = ['s0', 's1', 's2'];

type Step =
  | { kind: 'order'; lines: { seller: number; amount: number; ruled: boolean }[] }
  | { kind: 'refund'; order: number; fraction: number }
  | { kind: 'settle'; days: number }
  | { kind: 'payout'; seller: number; amount: number; fails: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('order' as const), lines: fc.array(fc.record({ seller: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 100, max: 40_000 }), ruled: fc.boolean() }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('refund' as const), order: fc.nat(), fraction: fc.double({ min: 0.01, max: 1.3, noNaN: true }) }),
  fc.record({ kind: fc.constant('settle' as const), days: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('payout' as const), seller: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 100, max: 20_000 }), fails: fc.boolean() }),
);

async function all(svc: TestService, key: string, path: string): Promise<Record<string, never>[]> {
  const out = [];
  let after: string | undefined;
  for (;;) {
    const page = (await mkt(svc, key, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${after ? `&starting_after=${after}` : ''}`)).body;
    out.push(...page.data);
    if (!page.has_more) return out;
    after = page.data.at(-1).id;
  }
}

/** A broken invariant: thrown, so that fast-check shrinks the sequence and reports it. */
function fail(message: string): never {
  throw new Error(message);
}

async function checkInvariants(key: string, sellerIds: string[]): Promise<void> {
  const orders = await all(svc, key, '/orders');
  let paidIn = 0;
  let fees = 0;
  let refunded = 0;
  for (const o of orders as unknown as Order[]) {
    const shares = o.sellerShares.reduce((s, x) => s + x.amountMinor, 0);
    if (shares + o.commissionMinor !== o.amountMinor) fail(`order ${o.id}: shares + commission ≠ amount`);
    if (o.refundedMinor > o.amountMinor) fail(`order ${o.id}: refunded beyond the amount`);
    const refunds = (await all(svc, key, `/refunds?orderId=${o.id}`)) as unknown as Refund[];
    if (refunds.reduce((s, r) => s + r.amountMinor, 0) !== o.refundedMinor) fail(`order ${o.id}: refunds do not add up`);
    for (const r of refunds) if (r.sellerReversals.reduce((s, x) => s + x.amountMinor, 0) + r.commissionReversedMinor !== r.amountMinor) fail(`refund ${r.id} does not split exactly`);
    if (o.status !== 'requires_payment' && o.status !== 'canceled') {
      paidIn += o.amountMinor;
      fees += o.processingFeeMinor ?? 0;
      refunded += o.refundedMinor;
    }
  }
  for (const id of sellerIds) {
    for (const b of (await mkt(svc, key, 'GET', `/sellers/${id}/balance`)).body.balances) if (b.pendingMinor < 0 || b.availableMinor < 0) fail(`seller ${id} below zero`);
  }
  const payouts = (await all(svc, key, '/payouts')) as unknown as Payout[];
  const paidOut = payouts.filter((p) => p.status !== 'failed' && p.status !== 'canceled').reduce((s, p) => s + p.amountMinor + p.feeMinor, 0);
  const funds = (await mkt(svc, key, 'GET', '/balance')).body.balances[0] ?? { sellerPendingMinor: 0, sellerAvailableMinor: 0, commissionMinor: 0 };
  const held = funds.sellerPendingMinor + funds.sellerAvailableMinor + funds.commissionMinor;
  if (held + fees + refunded + paidOut !== paidIn) fail(`money unaccounted for: held ${held} + fees ${fees} + refunded ${refunded} + paid out ${paidOut} ≠ paid in ${paidIn}`);
}

interface Order {
  id: string;
  status: string;
  amountMinor: number;
  commissionMinor: number;
  processingFeeMinor: number | null;
  refundedMinor: number;
  sellerShares: { amountMinor: number }[];
}
interface Refund {
  id: string;
  amountMinor: number;
  sellerReversals: { amountMinor: number }[];
  commissionReversedMinor: number;
}
interface Payout {
  status: string;
  amountMinor: number;
  feeMinor: number;
}

t.test('random sequences keep the invariants after each step', async (t) => {
  let run = 0;
  let checks = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 10 }), async (steps) => {
      const { key } = await svc.sandboxMerchant(`Property ${++run}`);
      const rule = await createRule(svc, key, { percentBasisPoints: 1250, fixedFeeMinor: 10 });
      const sellers = [];
      for (const [i, id] of SELLERS.entries()) sellers.push(await createSeller(svc, key, id, { settlementMode: i === 2 ? 'manual' : 'rolling', settlementDelayDays: i }));
      const orders: string[] = [];
      for (const s of steps) {
        if (s.kind === 'order') {
          const lines = s.lines.map((l) => ({ sellerId: SELLERS[l.seller]!, amountMinor: l.amount, ...(l.ruled ? { commissionRuleId: rule.id } : {}) }));
          orders.push((await payOrder(svc, key, await createOrder(svc, key, lines))).id);
        } else if (s.kind === 'refund' && orders.length > 0) {
          const order = (await mkt(svc, key, 'GET', `/orders/${orders[s.order % orders.length]}`)).body;
          const res = await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: Math.max(1, Math.floor(order.amountMinor * s.fraction)) });
          if (![201, 400, 409].includes(res.status)) fail(`refund answered ${res.status}`);
        } else if (s.kind === 'settle') {
          await advance(svc, s.days * DAY);
          await mkt(svc, key, 'POST', '/settlements/process-due', {});
        } else if (s.kind === 'payout') {
          const res = await mkt(svc, key, 'POST', `/sellers/${sellers[s.seller]!.id}/payouts`, { amountMinor: s.amount, currency: 'xof', destination: mobileMoney(s.fails ? '01' : '67') });
          if (![201, 400].includes(res.status)) fail(`payout answered ${res.status}: ${res.text}`);
          await advance(svc);
          await advance(svc);
        }
        await checkInvariants(
          key,
          sellers.map((x) => x.id),
        );
        checks++;
      }
    }),
    { numRuns: 6 },
  );
  t.ok(checks >= 6 * 3, `6 random sequences, the invariants checked after each of their ${checks} steps`);
});

t.test('the marketplace read models equal their rebuild from the log', async (t) => {
  const names = ['marketplace_commission_rules', 'marketplace_sellers', 'marketplace_orders', 'marketplace_refunds', 'marketplace_funds', 'marketplace_payouts'];
  t.same(await svc.system.verifyProjections(names), []);
  await svc.system.knex('read.marketplace_entries').where('kind', 'order_payment').increment('seller_pending', 1);
  t.equal((await svc.system.verifyProjections(['marketplace_funds'])).length > 0, true, 'an edited row is found');
});
