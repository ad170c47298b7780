/**
 * Intelligence through the real server, on payments made through the API and the sandbox
 * operator: KPI figures checked against the payments made (totals and each breakdown), routing
 * decisions, customer lifecycle stages moving with the manual clock, recommendations (an operator
 * failing, customers to re-engage), operator health, context suggestions, range refusals, and
 * tenant isolation.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { startPaymentsService, type TestService } from '../../support/system.js';
import { settle } from '../../support/webhooks.js';

const svc: TestService = await startPaymentsService(t);
const { key } = await svc.sandboxMerchant();
const other = await svc.sandboxMerchant('Other');
const DAY = 86_400_000;
const get = (path: string, withKey = key) => svc.request('GET', `/api/v1/intelligence${path}`, { key: withKey });

/** Confirms new intents in parallel (the sandbox outcome is the MSISDN's last two digits), then lets the operator answer. */
async function payments(specs: { amount: number; operator?: string; outcome: '67' | '01' | null; customerEmail?: string }[]) {
  const intents = await Promise.all(specs.map((s) => createIntent(svc, key, { amount: s.amount, ...(s.customerEmail ? { customer_email: s.customerEmail } : {}) })));
  await Promise.all(
    specs.map(async (s, i) => {
      if (s.outcome === null) return;
      const res = await confirm(svc, key, intents[i].id, { payment_method: mobileMoney(snNumber(s.outcome), s.operator ?? 'orange_money') });
      if (res.status !== 200) throw new Error(`confirm failed: ${res.text}`);
    }),
  );
  await operatorAnswers(svc);
  // The intelligence read models follow the log: wait until they have read it all before asking them.
  await settle(svc);
  return Promise.all(intents.map(async (i) => (await svc.request('GET', `/api/v1/payment-intents/${i.id}`, { key })).body));
}

// Day 1 (2026-01-01): three paid by Orange Money (one of them by a customer), one refused, one never confirmed; a refund of 2,500.
const day1 = await payments([
  { amount: 10_000, outcome: '67', customerEmail: 'awa@example.com' },
  { amount: 20_000, outcome: '67' },
  { amount: 5_000, outcome: '67' },
  { amount: 7_000, outcome: '01' },
  { amount: 3_000, outcome: null },
]);
const customer = { id: day1[0].customer as string };
const refund = await svc.request('POST', `/api/v1/merchant/payments/${day1[1].id}/refund`, { key, body: { amount: 2_500 } });
if (refund.status !== 200) throw new Error(`refund failed: ${refund.text}`);
await svc.system.drain();
// Day 2: one paid by Wave.
svc.clock.advance(DAY);
const day2 = await payments([{ amount: 40_000, operator: 'wave', outcome: '67' }]);
// The analytics follow the log after the commit (followsLog): wait for them, as after day 1.
await svc.system.drain();
const feeOf = (intents: { fee: number | null; status: string }[]) => intents.filter((i) => i.status === 'succeeded').reduce((sum, i) => sum + (i.fee ?? 0), 0);

t.test('KPIs over the range: the figures of the payments made', async (t) => {
  const res = await get('/kpis?from=2026-01-01&to=2026-01-02');
  assertOk(t, res);
  const fees = feeOf([...day1, ...day2]);
  t.ok(fees > 0, 'the sandbox charges fees');
  t.same(res.body, {
    object: 'intelligence.kpis',
    from: '2026-01-01',
    to: '2026-01-02',
    currency: null,
    data: [{ currency: 'XOF', count: 6, succeeded: 4, failed: 1, successRate: 0.8, volume: 75_000, fees, refunds: 2_500, net: 75_000 - fees - 2_500 }],
  });
  const one = await get('/kpis?from=2026-01-02&to=2026-01-02&currency=xof');
  t.match(one.body.data, [{ count: 1, succeeded: 1, volume: 40_000, refunds: 0, successRate: 1 }]);
  const none = await get('/kpis?from=2025-01-01&to=2025-12-31');
  t.same(none.body.data, [], 'no payments, no figures');
  const defaults = await get('/kpis');
  t.match(defaults.body, { from: '2025-12-04', to: '2026-01-02' }, 'the 30 days up to today by default');
});

t.test('KPIs by operator, method, country and day', async (t) => {
  const byOperator = await get('/kpis/breakdown?dimension=operator&from=2026-01-01&to=2026-01-02');
  assertOk(t, byOperator);
  t.same(
    byOperator.body.data.map((r: Record<string, unknown>) => [r.key, r.count, r.succeeded, r.failed, r.volume, r.refunds]),
    [
      ['none', 1, 0, 0, 0, 0],
      ['orange_money', 4, 3, 1, 35_000, 2_500],
      ['wave', 1, 1, 0, 40_000, 0],
    ],
  );
  const byDay = await get('/kpis/breakdown?dimension=day&from=2026-01-01&to=2026-01-02');
  t.same(
    byDay.body.data.map((r: Record<string, unknown>) => [r.key, r.count, r.volume, r.fees]),
    [
      ['2026-01-01', 5, 35_000, feeOf(day1)],
      ['2026-01-02', 1, 40_000, feeOf(day2)],
    ],
  );
  const byMethod = await get('/kpis/breakdown?dimension=method&from=2026-01-01&to=2026-01-02');
  t.same(
    byMethod.body.data.map((r: Record<string, unknown>) => [r.key, r.count]),
    [
      ['none', 1],
      ['mobile_money', 5],
    ],
  );
  const byCountry = await get('/kpis/breakdown?dimension=country&from=2026-01-01&to=2026-01-02');
  t.same(
    byCountry.body.data.map((r: Record<string, unknown>) => [r.key, r.count, r.successRate]),
    [['SN', 6, 0.8]],
  );
  assertError(t, await get('/kpis/breakdown?from=2026-01-01'), 'IKW-VAL-001', 'dimension');
  assertError(t, await get('/kpis/breakdown?dimension=weekday'), 'IKW-VAL-001', 'dimension');
});

t.test('range refusals', async (t) => {
  assertError(t, await get('/kpis?from=2026-01-03&to=2026-01-01'), 'IKW-ITL-001', 'from');
  assertError(t, await get('/kpis?from=2024-01-01&to=2026-01-01'), 'IKW-ITL-001', 'from');
  assertError(t, await get('/kpis?from=yesterday'), 'IKW-VAL-001', 'from');
  assertError(t, await get('/kpis?from=2026-02-30'), 'IKW-VAL-001', 'from');
});

t.test('decisions: which operator and rail each payment was routed to', async (t) => {
  const res = await get(`/decisions?subject=${day2[0].id}`);
  assertOk(t, res);
  t.equal(res.body.data.length, 1);
  const [decision] = res.body.data;
  t.match(decision, { object: 'intelligence.decision', kind: 'payment_routing', subject: day2[0].id, outcome: { method: 'mobile_money', operator: 'wave', rail_country: 'SN' } });
  t.match(decision.reason, /wave/);
  const one = await get(`/decisions/${decision.id}`);
  assertOk(t, one);
  t.same(one.body, decision);
  const all = await get('/decisions?kind=payment_routing&limit=100');
  t.equal(all.body.data.length, 5, 'one per confirmed payment');
  assertError(t, await get(`/decisions/${decision.id}`, other.key), 'IKW-RES-001', 'decisionId');

  const payout = await svc.request('POST', '/api/v1/payouts', {
    key,
    headers: { 'X-Environment': 'sandbox' },
    body: { amount: 1_000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234599' } },
  });
  assertOk(t, payout);
  // Decisions are a read model that follows the log (no request reads its own writes there).
  await settle(svc);
  const routed = await get(`/decisions?kind=payout_routing&subject=${payout.body.id}`);
  t.match(routed.body.data, [{ kind: 'payout_routing', subject: payout.body.id, outcome: { method: 'mobile_money', operator: 'wave', rail_country: 'SN', fee: payout.body.fee } }]);
  t.same((await get('/decisions', other.key)).body.data, []);
});

t.test('customer lifecycle moves with time', async (t) => {
  const now = await get('/lifecycle');
  assertOk(t, now);
  t.match(now.body, { object: 'intelligence.lifecycle', stages: { new: 1, active: 0, at_risk: 0, churned: 0 }, total: 1 });
  const mine = await get(`/customers/${customer.id}`);
  assertOk(t, mine);
  t.match(mine.body, { customer: customer.id, stage: 'new', payments: 1 });
  assertError(t, await get(`/customers/${customer.id}`, other.key), 'IKW-RES-001', 'customerId');

  svc.clock.advance(45 * DAY);
  t.match((await get('/lifecycle')).body.stages, { new: 0, at_risk: 1 });
  const atRisk = await get('/lifecycle/customers?stage=at_risk');
  assertOk(t, atRisk);
  t.same(
    atRisk.body.data.map((c: { customer: string }) => c.customer),
    [customer.id],
  );
  const recommendations = await get('/recommendations');
  assertOk(t, recommendations);
  t.match(recommendations.body.data, [{ kind: 'reengage_customers', evidence: { at_risk: 1 } }]);

  svc.clock.advance(60 * DAY);
  t.match((await get('/lifecycle')).body.stages, { at_risk: 0, churned: 1 });
  t.same((await get('/recommendations')).body.data, [], 'a churned customer is no longer one to re-engage');
  t.same((await get('/lifecycle', other.key)).body.stages, { new: 0, active: 0, at_risk: 0, churned: 0 });
});

t.test('an operator failing more than usual is recommended against, and shown degraded', async (t) => {
  // 20 Free Money payments today, 8 refused: 40% failing, with no history to call it usual.
  await payments(Array.from({ length: 20 }, (_, i) => ({ amount: 1_000, operator: 'free_money', outcome: i < 8 ? ('01' as const) : ('67' as const) })));
  const recommendations = await get('/recommendations');
  t.match(recommendations.body.data, [{ kind: 'operator_failing', severity: 'high', evidence: { operator: 'free_money', attempts: 20, failed: 8, failure_rate: 0.4 } }]);
  const health = await get('/operators');
  assertOk(t, health);
  t.match(health.body.data, [{ operator: 'free_money', country: 'SN', attempts: 20, failed: 8, failureRate: 0.4, usualFailureRate: null, status: 'degraded' }]);
  t.same((await get('/operators', other.key)).body.data, []);
  assertError(t, await get('/operators?days=0'), 'IKW-VAL-001', 'days');
});

t.test('context suggestions for the merchant and page', async (t) => {
  const fresh = await svc.sandboxMerchant('Fresh');
  const res = await svc.request('GET', '/api/v1/context-intelligence/suggestions', { key: fresh.key });
  assertOk(t, res);
  const ids = res.body.data.map((s: { id: string }) => s.id);
  t.same(ids, ['first_sandbox_payment', 'payout_destination', 'webhook_endpoint', 'logo', 'payment_links', 'payout_engine', 'customers']);

  // The merchant with payments: a refusal since yesterday comes first; onboarding steps done are gone.
  const mine = await svc.request('GET', '/api/v1/context-intelligence/suggestions?page=payouts', { key });
  assertOk(t, mine);
  const mineIds = mine.body.data.map((s: { id: string }) => s.id);
  t.equal(mine.body.page, 'payouts');
  t.notOk(mineIds.includes('first_sandbox_payment'));
  t.notOk(mineIds.includes('customers'));
  t.same(mineIds.slice(0, 2), ['payout_destination', 'payout_engine'], "the payouts page's suggestions first");
  t.ok(mineIds.includes('failed_payments'), 'the payments refused today');
  assertError(t, await svc.request('GET', '/api/v1/context-intelligence/suggestions?page=nowhere', { key }), 'IKW-VAL-001', 'page');
});

t.test('a rebuild from the log gives the rows the live run gave', async (t) => {
  t.same(await svc.system.verifyProjections(['intelligence_payments', 'intelligence_decisions']), []);
});
