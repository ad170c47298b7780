/**
 * The risk team's operator API for limits and holds (docs/operator.md, "Limits and holds"), on the
 * real server and ledger with a manual clock: a risk operator's maximums, daily caps, payout freeze
 * and rolling reserve as the merchant's payments, payouts, balance and `GET /api/v1/limits` meet
 * them; every change an event with the operator as its actor; the overview of frozen merchants;
 * other roles (403) and merchant credentials (404) turned away; another merchant untouched.
 */
import t from '#tap';
import { assertError, assertOk, balance, fund, mobileMoney, postPayout } from '../../support/payouts.js';
import { confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../../support/payments.js';
import { operatorSession } from '../../support/operators.js';
import { startPaymentsService, type TestService } from '../../support/system.js';

const svc: TestService = await startPaymentsService(t);
const destination = mobileMoney('67');

const limitsPath = (merchantId: string, tail = '') => `/api/v1/operator/merchants/${merchantId}/limits${tail}`;
const asOperator = (method: string, path: string, token: string, body?: unknown) => svc.request(method, path, { key: token, ...(body === undefined ? {} : { body }) });

/** Operators signed in now (a session lasts 12 hours of the manual clock the tests move). */
async function team() {
  return { risk: await operatorSession(svc, 'risk'), reviewer: await operatorSession(svc, 'reviewer'), admin: await operatorSession(svc, 'admin'), finance: await operatorSession(svc, 'finance') };
}

/** The stored limits events of a merchant's sandbox, with their actors. */
async function decisions(merchantId: string) {
  return (await svc.system.store.readStream(`merchant_limits-${merchantId}-sandbox`)).map((e) => [e.type, e.metadata.actor]);
}

/** A sandbox payment of `amount` XOF that succeeds: its confirmation's answer. */
async function pay(key: string, amount: number) {
  const intent = await createIntent(svc, key, { amount });
  const confirmed = await confirm(svc, key, intent.id, { payment_method: payWith(snNumber('67')) });
  await operatorAnswers(svc);
  return { intent, confirmed };
}

t.test("a rolling reserve holds part of each payment in the balance's reserved, shown with its release date; removed, no more", async (t) => {
  const { risk, reviewer } = await team();
  const { merchant: m, key } = await svc.sandboxMerchant();
  const set = await asOperator('POST', limitsPath(m.id, '/rolling-reserve'), risk.token, { environment: 'sandbox', percent: 10, days: 30 });
  assertOk(t, set);
  t.same(set.body.rollingReserve, { percent: 10, days: 30 });
  const paidAt = svc.clock.now().getTime();
  const { intent } = await pay(key, 10_000);
  const funds = await balance(svc, key);
  const net = funds.available + funds.reserved;
  t.ok(funds.reserved > 0, `reserved ${funds.reserved}`);
  t.equal(funds.reserved, Math.floor(net / 10), "10% of the payment's net is in the balance's reserved");

  const read = await asOperator('GET', limitsPath(m.id, '?environment=sandbox'), risk.token);
  t.same(read.body.reservesHeld.totals, { xof: funds.reserved });
  t.match(read.body.reservesHeld.soonest, [{ paymentIntent: intent.id, amount: funds.reserved, currency: 'xof' }]);
  t.ok(Math.abs(Date.parse(read.body.reservesHeld.soonest[0].releasesAt) - (paidAt + 30 * 86_400_000)) <= 10_000, 'released 30 days after the payment');
  const page = await asOperator('GET', `/api/v1/operator/merchants/${m.id}`, reviewer.token);
  assertOk(t, page);
  t.match(
    page.body.limits,
    { sandbox: { rollingReserve: { percent: 10, days: 30 }, reservesHeld: { totals: { xof: funds.reserved } } }, live: { rollingReserve: null, reservesHeld: { totals: {} } } },
    "the merchant's page shows them per environment",
  );

  assertError(t, await asOperator('POST', limitsPath(m.id, '/rolling-reserve'), risk.token, { environment: 'sandbox', percent: 0, days: 30 }), 'IKW-LIM-006', 'percent');
  assertError(t, await asOperator('POST', limitsPath(m.id, '/rolling-reserve'), risk.token, { environment: 'sandbox', percent: 5, days: 366 }), 'IKW-LIM-006', 'days');
  const removed = await asOperator('DELETE', limitsPath(m.id, '/rolling-reserve?environment=sandbox'), risk.token);
  assertOk(t, removed);
  t.equal(removed.body.rollingReserve, null);
  await pay(key, 10_000);
  t.equal((await balance(svc, key)).reserved, funds.reserved, 'a payment after holds no reserve; the one held stays');
  t.same(await decisions(m.id), [
    ['merchant_limits.reserve_set', `operator:${risk.operatorId}`],
    ['merchant_limits.reserve_set', `operator:${risk.operatorId}`],
  ]);
});

t.test('a risk operator sets maximums and daily caps: payments and payouts above them are refused; the merchant reads them', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant();
  await fund(svc, m.id, 100_000);
  await fund(svc, other.merchant.id, 100_000);
  const now = svc.clock.now();
  svc.clock.advance(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 22, 0, 0) - now.getTime());
  const { risk, reviewer, admin } = await team();

  const set = await asOperator('PUT', limitsPath(m.id), risk.token, { environment: 'sandbox', transactionMaximums: { XOF: 5_000 }, dailyPayoutCaps: { xof: 8_000 } });
  assertOk(t, set);
  t.match(set.body, { object: 'limits', merchantId: m.id, environment: 'sandbox', transactionMaximums: { xof: 5_000 }, dailyPayoutCaps: { xof: 8_000 }, payoutFreeze: null, rollingReserve: null, updated: Number });

  assertError(t, await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 5_001, currency: 'xof', transaction_country: 'SN' } }), 'IKW-LIM-003', 'amount');
  assertError(t, await postPayout(svc, key, { amount: 5_001, currency: 'xof', destination }), 'IKW-LIM-003', 'amount');
  assertOk(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination }));
  const overCap = await postPayout(svc, key, { amount: 3_001, currency: 'xof', destination });
  assertError(t, overCap, 'IKW-LIM-004', 'amount');
  t.equal(overCap.headers.get('retry-after'), String(2 * 3_600), 'Retry-After: the seconds until 00:00 UTC');
  assertOk(t, await postPayout(svc, key, { amount: 3_000, currency: 'xof', destination }));

  const shown = await svc.request('GET', '/api/v1/limits', { key });
  t.match(shown.body, { transactionMaximums: { xof: 5_000 }, dailyPayoutCaps: { xof: 8_000 } }, "the merchant's GET /api/v1/limits shows them");
  const read = await asOperator('GET', limitsPath(m.id, '?environment=sandbox'), reviewer.token);
  assertOk(t, read);
  t.match(read.body, { transactionMaximums: { xof: 5_000 }, dailyPayoutCaps: { xof: 8_000 }, reservesHeld: { totals: {}, soonest: [] } }, 'any operator reads them');
  t.match((await asOperator('GET', limitsPath(m.id), reviewer.token)).body, { environment: 'live', transactionMaximums: {}, dailyPayoutCaps: {} }, 'live is apart, and the default');

  t.ok(await createIntent(svc, other.key, { amount: 50_000 }), 'another merchant is not under them');
  assertOk(t, await postPayout(svc, other.key, { amount: 20_000, currency: 'xof', destination }));

  assertError(t, await asOperator('PUT', limitsPath(m.id), risk.token, { environment: 'sandbox', transactionMaximums: { zzz: 5 }, dailyPayoutCaps: {} }), 'IKW-LIM-006');
  const negative = await asOperator('PUT', limitsPath(m.id), risk.token, { environment: 'sandbox', transactionMaximums: { xof: -5 }, dailyPayoutCaps: {} });
  t.equal(negative.status, 400);
  t.match(negative.body.code, /^IKW-VAL-/);
  t.match((await asOperator('PUT', limitsPath(m.id), risk.token, { transactionMaximums: {} })).body.code, /^IKW-VAL-/, 'both maps are required');
  t.match(await asOperator('PUT', limitsPath('acct_nobody'), risk.token, { transactionMaximums: {}, dailyPayoutCaps: {} }), { status: 404, body: { code: 'IKW-RES-001' } });
  t.match(await asOperator('GET', limitsPath('acct_nobody'), risk.token), { status: 404, body: { code: 'IKW-RES-001' } });

  assertOk(t, await asOperator('PUT', limitsPath(m.id), admin.token, { environment: 'sandbox', transactionMaximums: {}, dailyPayoutCaps: {} })); // an admin always may
  assertOk(t, await postPayout(svc, key, { amount: 9_000, currency: 'xof', destination }));
  t.same(
    await decisions(m.id),
    [
      ['merchant_limits.amounts_set', `operator:${risk.operatorId}`],
      ['merchant_limits.amounts_set', `operator:${admin.operatorId}`],
    ],
    'every change is an event with its operator as actor; refused ones none',
  );
});

t.test('a freeze with a reason refuses payouts with it, payments are still taken; the overview lists it; lifted, payouts pass', async (t) => {
  const { risk, reviewer } = await team();
  const { merchant: m, key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant();
  await fund(svc, m.id, 100_000);
  await fund(svc, other.merchant.id, 100_000);

  const frozen = await asOperator('POST', limitsPath(m.id, '/payout-freeze'), risk.token, { environment: 'sandbox', reason: 'Unusual refund rate under review' });
  assertOk(t, frozen);
  t.match(frozen.body, { payoutFreeze: { reason: 'Unusual refund rate under review', since: Number } });
  const refused = await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination });
  assertError(t, refused, 'IKW-LIM-005', 'amount');
  t.match(refused.body.message, /Unusual refund rate under review/, 'the merchant reads the reason');
  const { confirmed } = await pay(key, 10_000);
  assertOk(t, confirmed);
  t.equal((await svc.request('GET', `/api/v1/payment-intents/${confirmed.body.id}`, { key })).body.status, 'succeeded', 'payments are still taken');
  assertOk(t, await postPayout(svc, other.key, { amount: 1_000, currency: 'xof', destination })); // another merchant's payouts pass

  const overview = await asOperator('GET', '/api/v1/operator/limits?payouts_frozen=true&environment=sandbox', reviewer.token);
  assertOk(t, overview);
  t.ok(
    overview.body.data.some((l: { merchantId: string }) => l.merchantId === m.id),
    'the frozen merchant is in the overview',
  );
  t.notOk(
    overview.body.data.some((l: { merchantId: string }) => l.merchantId === other.merchant.id),
    'the other is not',
  );
  t.ok(
    overview.body.data.every((l: { payoutFreeze: unknown; environment: string }) => l.payoutFreeze !== null && l.environment === 'sandbox'),
    'only frozen, only sandbox',
  );
  t.notOk(
    (await asOperator('GET', '/api/v1/operator/limits?payouts_frozen=true&environment=live', risk.token)).body.data.some((l: { merchantId: string }) => l.merchantId === m.id),
    'live is not frozen',
  );

  assertError(t, await asOperator('POST', limitsPath(m.id, '/payout-freeze'), risk.token, { environment: 'sandbox', reason: '   ' }), 'IKW-LIM-006', 'reason');
  t.match((await asOperator('POST', limitsPath(m.id, '/payout-freeze'), risk.token, { environment: 'sandbox' })).body.code, /^IKW-VAL-/, 'a freeze needs a reason');

  const lifted = await asOperator('POST', limitsPath(m.id, '/payout-freeze/lift'), risk.token, { environment: 'sandbox' });
  assertOk(t, lifted);
  t.equal(lifted.body.payoutFreeze, null);
  assertOk(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination })); // lifted, payouts pass
  assertOk(t, await asOperator('POST', limitsPath(m.id, '/payout-freeze/lift'), risk.token, { environment: 'sandbox' })); // lifting again records nothing (below)
  t.notOk(
    (await asOperator('GET', '/api/v1/operator/limits?payouts_frozen=true', risk.token)).body.data.some((l: { merchantId: string }) => l.merchantId === m.id),
    'no longer in the overview',
  );
  t.same(await decisions(m.id), [
    ['merchant_limits.payouts_frozen', `operator:${risk.operatorId}`],
    ['merchant_limits.payouts_unfrozen', `operator:${risk.operatorId}`],
  ]);
});

t.test('a reviewer or finance may read but not change (403); a merchant credential finds no such route (404)', async (t) => {
  const { reviewer, finance } = await team();
  const { merchant: m, key } = await svc.sandboxMerchant();
  const changes: [string, string, unknown?][] = [
    ['PUT', limitsPath(m.id), { transactionMaximums: { xof: 1 }, dailyPayoutCaps: {} }],
    ['POST', limitsPath(m.id, '/payout-freeze'), { reason: 'no' }],
    ['POST', limitsPath(m.id, '/payout-freeze/lift'), {}],
    ['POST', limitsPath(m.id, '/rolling-reserve'), { percent: 5, days: 5 }],
    ['DELETE', limitsPath(m.id, '/rolling-reserve')],
  ];
  for (const [method, path, body] of changes) {
    for (const who of [reviewer, finance]) t.match(await asOperator(method, path, who.token, body), { status: 403, body: { code: 'IKW-OPR-001' } }, `${method} ${path}`);
    const asMerchant = await asOperator(method, path, key, body);
    t.equal(asMerchant.status, 404, `a merchant key: ${method} ${path}`);
    t.match(asMerchant.body, { message: /^No such route/ });
  }
  for (const path of [limitsPath(m.id), '/api/v1/operator/limits']) {
    assertOk(t, await asOperator('GET', path, finance.token));
    const asMerchant = await asOperator('GET', path, key);
    const unknown = await asOperator('GET', '/api/v1/operator/no-such-route', key);
    t.equal(asMerchant.status, 404);
    t.equal(asMerchant.body.code, unknown.body.code, 'answered as a path that does not exist');
  }
  t.same(await decisions(m.id), [], 'nothing recorded');
  t.match((await svc.request('GET', '/api/v1/limits', { key })).body, { transactionMaximums: {}, payoutFreeze: null, rollingReserve: null });
});
