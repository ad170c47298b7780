/**
 * Payment capabilities through the real server: created against the catalog (one per country,
 * currency, method and operator), enabled, disabled, suspended with a reason, resumed, deleted; and
 * enforced where money moves: payment intent confirm, payouts and payout batch instructions refuse
 * a disabled or suspended method (IKW-CAP-001, IKW-CAP-002), an operator's own capability wins over
 * the method's; another merchant's capability is 404 and changes nothing for it.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { engine, walletInstruction } from '../../support/payout-engine.js';
import { fund, mobileMoney, postPayout } from '../../support/payouts.js';
import { startPaymentsService, type TestService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const BASE = '/api/v1/payment_capabilities';
const call = (s: TestService, key: string, method: string, path: string, body?: unknown) => s.request(method, `${BASE}${path}`, { key, ...(body !== undefined ? { body } : {}) });

t.test('create, retrieve, list, update, suspend, resume, delete', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const created = await call(svc, key, 'POST', '', { country: 'sn', currency: 'XOF', payment_method_type: 'mobile_money', operator: 'wave' });
  assertOk(t, created);
  t.match(created.body, { object: 'payment_capability', country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', operator: 'wave', is_enabled: true, status: 'active', suspension_reason: null, livemode: false });
  assertError(t, await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', operator: 'wave' }), 'IKW-CAP-003');
  assertError(t, await call(svc, key, 'POST', '', { country: 'SN', currency: 'ghs', payment_method_type: 'card' }), 'IKW-VAL-009', 'currency');
  assertError(t, await call(svc, key, 'POST', '', { country: 'ZZ', currency: 'xof', payment_method_type: 'card' }), 'IKW-VAL-004', 'country');
  assertError(t, await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', operator: 'nope' }), 'IKW-VAL-005', 'operator');
  assertError(t, await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'card', operator: 'wave' }), 'IKW-VAL-002', 'operator');
  assertError(t, await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof' }), 'IKW-VAL-001', 'payment_method_type');

  const id = created.body.id as string;
  assertOk(t, await call(svc, key, 'GET', `/${id}`));
  const disabled = await call(svc, key, 'POST', `/${id}`, { is_enabled: false });
  assertOk(t, disabled);
  t.equal(disabled.body.is_enabled, false);
  const suspended = await call(svc, key, 'POST', `/${id}/suspend`, { reason: 'Compliance review' });
  t.match(suspended.body, { status: 'suspended', suspension_reason: 'Compliance review' });
  assertError(t, await call(svc, key, 'POST', `/${id}/suspend`, { reason: 'again' }), 'IKW-RES-002', 'id');
  assertError(t, await call(svc, key, 'POST', `/${id}/suspend`, {}), 'IKW-VAL-001', 'reason');
  const resumed = await call(svc, key, 'POST', `/${id}/resume`);
  t.match(resumed.body, { status: 'active', suspension_reason: null, is_enabled: false });
  assertError(t, await call(svc, key, 'POST', `/${id}/resume`), 'IKW-RES-002', 'id');
  const list = await call(svc, key, 'GET', '?country=sn&payment_method_type=mobile_money');
  t.same(
    list.body.data.map((c: { id: string }) => c.id),
    [id],
  );
  const deleted = await call(svc, key, 'DELETE', `/${id}`);
  assertOk(t, deleted);
  t.same(deleted.body, { id, object: 'payment_capability', deleted: true });
  assertError(t, await call(svc, key, 'GET', `/${id}`), 'IKW-RES-001');
  assertError(t, await call(svc, key, 'DELETE', `/${id}`), 'IKW-RES-001');
  const again = await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', operator: 'wave', is_enabled: false });
  assertOk(t, again);
  t.match(again.body, { id, is_enabled: false, status: 'active' }, 'created again after delete, the same id');
});

t.test('enforced on payouts and batch instructions: disabled, suspended, then the catalog again', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 1_000_000);
  assertOk(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() })); // no capability: the catalog allows it
  const cap = (await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', is_enabled: false })).body;
  assertError(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() }), 'IKW-CAP-001', 'destination');
  const batch = await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(1_000), walletInstruction(2_000, '67', { operator: 'wave' })] });
  assertError(t, batch, 'IKW-PEN-001');
  t.same(
    batch.body.errors.map((e: { index: number; code: string }) => [e.index, e.code]),
    [
      [0, 'IKW-CAP-001'],
      [1, 'IKW-CAP-001'],
    ],
  );

  const waveOnly = (await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', operator: 'wave' })).body;
  assertOk(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney('67', { operator: 'wave' }) })); // the operator's own capability wins
  assertError(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() }), 'IKW-CAP-001');

  await call(svc, key, 'POST', `/${waveOnly.id}/suspend`, { reason: 'Operator incident' });
  const suspended = await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney('67', { operator: 'wave' }) });
  assertError(t, suspended, 'IKW-CAP-002');
  t.match(suspended.body.message, /Operator incident/);

  await call(svc, key, 'DELETE', `/${cap.id}`);
  assertOk(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() })); // deleted: the catalog decides again
});

t.test('enforced at payment intent confirm', async (t) => {
  const { key } = await svc.sandboxMerchant();
  await call(svc, key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', operator: 'orange_money', is_enabled: false });
  const intent = (await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 5_000, currency: 'xof', transaction_country: 'SN' } })).body;
  const refused = await svc.request('POST', `/api/v1/payment-intents/${intent.id}/confirm`, {
    key,
    body: { payment_method: { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } } },
  });
  assertError(t, refused, 'IKW-CAP-001', 'payment_method');
  t.equal((await svc.request('GET', `/api/v1/payment-intents/${intent.id}`, { key })).body.status, 'requires_payment_method', 'nothing started');
  const wave = await svc.request('POST', `/api/v1/payment-intents/${intent.id}/confirm`, {
    key,
    body: { payment_method: { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'wave', msisdn: '+221771234567' } } },
  });
  assertOk(t, wave);
});

t.test("another merchant's capability is 404 and does not apply to it", async (t) => {
  const mine = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant('Other');
  await fund(svc, other.merchant.id, 100_000);
  const cap = (await call(svc, mine.key, 'POST', '', { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', is_enabled: false })).body;
  for (const [method, path, body] of [
    ['GET', `/${cap.id}`, undefined],
    ['POST', `/${cap.id}`, { is_enabled: true }],
    ['POST', `/${cap.id}/suspend`, { reason: 'x' }],
    ['POST', `/${cap.id}/resume`, undefined],
    ['DELETE', `/${cap.id}`, undefined],
  ] as const) {
    assertError(t, await call(svc, other.key, method, path, body), 'IKW-RES-001');
  }
  assertOk(t, await postPayout(svc, other.key, { amount: 1_000, currency: 'xof', destination: mobileMoney() })); // not disabled for the other merchant
  t.equal((await call(svc, other.key, 'GET', '')).body.data.length, 0);
  const readOnly = await svc.apiKey(mine.merchant.id, ['payment_capabilities.read']);
  assertOk(t, await call(svc, readOnly.secret, 'GET', ''));
  assertError(t, await call(svc, readOnly.secret, 'POST', `/${cap.id}`, { is_enabled: true }), 'IKW-AUT-004');
});

t.test('Idempotency-Key on create: one capability, the answer replayed', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const body = { country: 'CI', currency: 'xof', payment_method_type: 'card' };
  const first = await svc.request('POST', BASE, { key, body, headers: { 'idempotency-key': 'cap-1' } });
  const second = await svc.request('POST', BASE, { key, body, headers: { 'idempotency-key': 'cap-1' } });
  assertOk(t, second);
  t.equal(second.body.id, first.body.id);
  t.equal(second.headers.get('idempotent-replayed'), 'true');
});
