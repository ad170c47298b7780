/**
 * The platform's risk rules (docs/risk.md, "The platform's rules") and the amount far above the
 * merchant's usual, through the real server on a real PostgreSQL with a manual clock: the risk role
 * (and admin) changes the platform's rules, other roles and merchants' keys cannot; they apply to
 * every merchant whatever it set, and a merchant's stricter rule still applies; the usual-amount rule
 * decides nothing below its minimum history, then blocks, holds for review or scores as configured;
 * `sika projections verify` is clean.
 */
import t from '#tap';
import { assertError, assertOk, fund, getPayout, mobileMoney as payoutTo, postPayout } from '../../support/payouts.js';
import { confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../../support/payments.js';
import { operatorSession } from '../../support/operators.js';
import { startPaymentsService, type TestService } from '../../support/system.js';

const svc: TestService = await startPaymentsService(t);
const PLATFORM = '/api/v1/operator/risk/rules';
const rulesOff = { payerPaymentsPerHour: null, payerPaymentsPerDay: null, payoutsPerDestinationPerDay: null, amountCeiling: null, repeatedPayment: null, amountAboveUsual: null };

const risk = await operatorSession(svc, 'risk');
const admin = await operatorSession(svc, 'admin');
const asOperator = (method: string, token: string, body?: unknown) => svc.request(method, PLATFORM, { key: token, ...(body === undefined ? {} : { body }) });

/** Confirms a new intent of `amount` paid by the number ending in `lastTwo`: the confirm's answer. */
async function pay(key: string, lastTwo: string, amount: number) {
  const intent = await createIntent(svc, key, { amount });
  return confirm(svc, key, intent.id, { payment_method: payWith(snNumber(lastTwo)) });
}

/** The merchant's risk decisions in Insights, newest first. */
async function riskDecisions(key: string) {
  await svc.system.drain();
  const res = await svc.request('GET', '/api/v1/intelligence/decisions?kind=risk&limit=100', { key });
  t.equal(res.status, 200, res.text);
  return res.body.data as { subject: string; outcome: Record<string, string>; reason: string }[];
}

t.afterEach(async () => {
  assertOk(t, await asOperator('PUT', risk.token, {}));
});

t.test('the starting values are the constants; the risk role changes them, recorded with its actor; other roles and keys cannot', async (t) => {
  const start = await asOperator('GET', (await operatorSession(svc, 'reviewer')).token);
  assertOk(t, start);
  t.match(start.body, {
    object: 'platform_risk_rules',
    customized: [],
    updated: null,
    rules: { payerPaymentsPerHour: { limit: 10, action: 'score' }, blocklist: { action: 'block' }, amountAboveUsual: { multiple: 10, minimumHistory: 20, action: 'score' } },
  });

  const set = await asOperator('PUT', risk.token, { amountCeiling: { amounts: { XOF: 50_000 }, action: 'block' }, repeatedPayment: null });
  assertOk(t, set);
  t.same(set.body.customized, ['amountCeiling', 'repeatedPayment']);
  t.same(set.body.rules.amountCeiling, { amounts: { xof: 50_000 }, action: 'block' });
  t.equal(set.body.rules.repeatedPayment, null);
  t.type(set.body.updated, 'string');
  const events = await svc.system.store.readStream('risk_platform_rules-platform');
  t.equal(events.at(-1)?.type, 'risk_platform_rules.set');
  t.equal(events.at(-1)?.metadata.actor, `operator:${risk.operatorId}`, 'recorded with the operator as its actor');
  assertOk(t, await asOperator('PUT', admin.token, { repeatedPayment: { minutes: 5, action: 'score' } })); // admin too

  for (const role of ['reviewer', 'finance'] as const) {
    const refused = await asOperator('PUT', (await operatorSession(svc, role)).token, { repeatedPayment: null });
    t.equal(refused.status, 403, `${role}: ${refused.text}`);
    assertError(t, refused, 'IKW-OPR-001');
  }
  const { key } = await svc.sandboxMerchant();
  t.equal((await asOperator('PUT', key, {})).status === 200, false, "a merchant's key changes nothing");
  assertError(t, await asOperator('PUT', risk.token, { amountCeiling: { amounts: { zzz: 5 }, action: 'block' } }), 'IKW-LIM-008');
  assertError(t, await asOperator('PUT', risk.token, { amountAboveUsual: { multiple: 1, minimumHistory: 5, action: 'block' } }), 'IKW-VAL-001');
  t.same((await asOperator('GET', risk.token)).body.rules.repeatedPayment, { minutes: 5, action: 'score' }, 'the last change stands');
});

t.test("the platform's rules apply to every merchant, whatever it set; a merchant's stricter rule still applies", async (t) => {
  assertOk(t, await asOperator('PUT', risk.token, { ...rulesOff, amountCeiling: { amounts: { xof: 50_000 }, action: 'block' } }));
  const a = await svc.sandboxMerchant();
  const b = await svc.sandboxMerchant();
  // A merchant turning the rule off (or setting a higher ceiling) does not lift the platform's.
  assertOk(t, await svc.request('PUT', '/api/v1/risk/rules', { key: b.key, body: { amountCeiling: { amounts: { xof: 10_000_000 }, action: 'score' } } }));
  for (const m of [a, b]) {
    assertError(t, await pay(m.key, '31', 50_001), 'IKW-LIM-007', 'payment_method');
    assertOk(t, await pay(m.key, '32', 50_000));
  }
  const seen = await svc.request('GET', '/api/v1/risk/rules', { key: b.key });
  t.same(seen.body.platform.amountCeiling, { amounts: { xof: 50_000 }, action: 'block' }, "the merchant reads the platform's rules");

  // A merchant's own stricter rule adds to the platform's.
  assertOk(t, await svc.request('PUT', '/api/v1/risk/rules', { key: a.key, body: { amountCeiling: { amounts: { xof: 20_000 }, action: 'block' } } }));
  assertError(t, await pay(a.key, '33', 20_001), 'IKW-LIM-007', 'payment_method');
  assertOk(t, await pay(b.key, '33', 20_001)); // another merchant's rule is its own

  // Fund the balances and make a payout above the platform's ceiling: refused for both.
  await fund(svc, a.merchant.id, 200_000);
  assertError(t, await postPayout(svc, a.key, { amount: 60_000, currency: 'xof', destination: payoutTo('41') }), 'IKW-LIM-007', 'destination');
  const blocked = (await riskDecisions(a.key)).filter((d) => d.outcome.decision === 'block');
  t.ok(
    blocked.some((d) => /above the ceiling of 50000/.test(d.reason)),
    "the platform's rule is the reason the merchant reads",
  );
});

t.test("far above the merchant's usual: nothing below the minimum history, then review, block or score as configured", async (t) => {
  assertOk(t, await asOperator('PUT', risk.token, { ...rulesOff, amountAboveUsual: { multiple: 5, minimumHistory: 3, action: 'review' } }));
  const { merchant: m, key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant();
  await fund(svc, m.id, 5_000_000);
  await fund(svc, other.merchant.id, 5_000_000);
  const sendPayout = (k: string, amount: number, lastTwo: string) => postPayout(svc, k, { amount, currency: 'xof', destination: payoutTo(lastTwo) });

  // Two paid payouts of 1,000: below the minimum history of 3, a payout of 100,000 is not held.
  for (const lastTwo of ['50', '51']) assertOk(t, await sendPayout(key, 1_000, lastTwo));
  await operatorAnswers(svc);
  const early = await sendPayout(key, 100_000, '52');
  assertOk(t, early);
  t.notOk(early.body.review_status, 'no decision below the minimum history');
  await operatorAnswers(svc);
  t.equal((await getPayout(svc, key, early.body.id)).body.status, 'paid');

  // Now 3 paid (median 1,000): 5,000 passes, 5,001 is held for review.
  const median = await svc.request('GET', '/api/v1/risk/rules', { key });
  t.same(median.body.platform.amountAboveUsual, { multiple: 5, minimumHistory: 3, action: 'review' });
  const atMultiple = await sendPayout(key, 5_000, '53');
  assertOk(t, atMultiple);
  t.notOk(atMultiple.body.review_status, 'at the multiple of the median it passes');
  const held = await sendPayout(key, 5_001, '54');
  assertOk(t, held);
  t.equal(held.body.review_status, 'held', 'above it: held for review');
  const reasons = (await riskDecisions(key)).filter((d) => d.subject === held.body.id);
  t.match(reasons, [{ outcome: { decision: 'review', rules: 'amountAboveUsual' }, reason: /5001 xof is above 5 times the median \(1000\) of the merchant's last 3 successful payouts/ }]);
  // Another merchant without history: not held.
  t.notOk((await sendPayout(other.key, 5_001, '55')).body.review_status, "another merchant's usual is its own");

  // Block: refused before anything is held.
  assertOk(t, await asOperator('PUT', risk.token, { ...rulesOff, amountAboveUsual: { multiple: 5, minimumHistory: 3, action: 'block' } }));
  assertError(t, await sendPayout(key, 5_001, '56'), 'IKW-LIM-007', 'destination');

  // Score, as a merchant's own rule over the platform's off: recorded, the payment goes on.
  assertOk(t, await asOperator('PUT', risk.token, rulesOff));
  assertOk(t, await svc.request('PUT', '/api/v1/risk/rules', { key, body: { amountAboveUsual: { multiple: 3, minimumHistory: 2, action: 'score' } } }));
  for (const lastTwo of ['60', '61']) assertOk(t, await pay(key, lastTwo, 2_000));
  await operatorAnswers(svc);
  await svc.system.drain();
  const scored = await pay(key, '62', 6_001);
  assertOk(t, scored);
  const scoredDecision = (await riskDecisions(key)).find((d) => d.subject === scored.body.id);
  t.match(scoredDecision, { outcome: { decision: 'score', direction: 'payment', rules: 'amountAboveUsual' }, reason: /above 3 times the median \(2000\) of the merchant's last 2 successful payments/ });
  assertOk(t, await pay(key, '63', 6_000)); // at the multiple, nothing

  t.same(await svc.system.verifyProjections(), [], 'projections verify: clean');
});
