/**
 * The six operations that complete the billing family: plans and subscriptions listed and
 * retrieved, subscription cancel, usage records listed (docs/billing.md).
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/payments.js';
import { startService } from '../../support/system.js';

const svc = await startService(t);
const post = (key: string, path: string, body: unknown, headers: Record<string, string> = {}) => svc.request('POST', path, { key, body, headers });
const get = (key: string, path: string) => svc.request('GET', path, { key });

async function customer(key: string, email: string): Promise<string> {
  const res = await post(key, '/api/v1/payment-intents', { amount: 100, currency: 'xof', transaction_country: 'SN', customer_email: email });
  return res.body.customer;
}

async function plan(key: string, body: Record<string, unknown> = {}) {
  const res = await post(key, '/api/v1/billing/plans', { name: 'Starter', currency: 'XOF', recurringAmount: 5000, interval: 'month', ...body });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

async function subscribe(key: string, billingPlanId: string, customerId: string) {
  const res = await post(key, '/api/v1/billing/subscriptions', { billingPlanId, customerId });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

t.test('plans: listed newest first with cursors, retrieved by id; metered prices and archived products are not plans', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { key: otherKey } = await svc.sandboxMerchant('Other');
  const a = await plan(key, { name: 'A' });
  const b = await plan(key, { name: 'B', usageBasedEnabled: true, usageUnitAmount: 3 });
  const c = await plan(key, { name: 'C', interval: 'year' });
  const foreign = await plan(otherKey, { name: 'Foreign' });

  const all = await get(key, '/api/v1/billing/plans');
  assertOk(t, all);
  t.match(all.body, { object: 'list', has_more: false, url: '/api/v1/billing/plans' });
  t.same(
    all.body.data.map((p: { name: string }) => p.name),
    ['C', 'B', 'A'],
    'one plan per licensed price; the metered price of B is not one',
  );
  t.match(all.body.data[1], { id: b.id, object: 'billing_plan', usageBasedEnabled: true, usageUnitAmount: 3 });

  const first = await get(key, '/api/v1/billing/plans?limit=2');
  t.same(
    first.body.data.map((p: { id: string }) => p.id),
    [c.id, b.id],
  );
  t.equal(first.body.has_more, true);
  const next = await get(key, `/api/v1/billing/plans?limit=2&starting_after=${b.id}`);
  t.same(
    next.body.data.map((p: { id: string }) => p.id),
    [a.id],
  );
  t.equal(next.body.has_more, false);
  const back = await get(key, `/api/v1/billing/plans?limit=2&ending_before=${a.id}`);
  t.same(
    back.body.data.map((p: { id: string }) => p.id),
    [c.id, b.id],
  );
  assertError(t, await get(key, `/api/v1/billing/plans?starting_after=${foreign.id}`), 'IKW-VAL-001', 'starting_after');
  assertError(t, await get(key, '/api/v1/billing/plans?limit=0'), 'IKW-VAL-001', 'limit');

  t.same((await get(key, `/api/v1/billing/plans/${a.id}`)).body, a, 'retrieve answers what create answered');
  assertError(t, await get(key, `/api/v1/billing/plans/${foreign.id}`), 'IKW-RES-001');
  assertError(t, await get(otherKey, `/api/v1/billing/plans/${a.id}`), 'IKW-RES-001');
  const metered = (await get(key, `/api/v1/merchant/products/${b.productId}`)).body.prices[1].id as string;
  assertError(t, await get(key, `/api/v1/billing/plans/${metered}`), 'IKW-RES-001');

  assertOk(t, await svc.request('DELETE', `/api/v1/merchant/products/${a.productId}`, { key }));
  t.same(
    (await get(key, '/api/v1/billing/plans')).body.data.map((p: { name: string }) => p.name),
    ['C', 'B'],
    'an archived product offers no plan',
  );
  t.same(
    (await get(otherKey, '/api/v1/billing/plans')).body.data.map((p: { name: string }) => p.name),
    ['Foreign'],
  );
});

t.test('subscriptions: listed with filters and cursors, retrieved; another merchant’s are not found', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { key: otherKey } = await svc.sandboxMerchant('Other');
  const starter = await plan(key);
  const pro = await plan(key, { name: 'Pro', recurringAmount: 9000 });
  const ada = await customer(key, 'ada@example.com');
  const bo = await customer(key, 'bo@example.com');
  const s1 = await subscribe(key, starter.id, ada);
  const s2 = await subscribe(key, pro.id, ada);
  const s3 = await subscribe(key, starter.id, bo);
  const foreign = await subscribe(otherKey, (await plan(otherKey)).id, await customer(otherKey, 'x@example.com'));

  const ids = async (query = '') => (await get(key, `/api/v1/billing/subscriptions${query}`)).body.data.map((s: { id: string }) => s.id);
  t.same(await ids(), [s3.id, s2.id, s1.id]);
  t.same(await ids(`?customerId=${ada}`), [s2.id, s1.id]);
  t.same(await ids(`?billingPlanId=${starter.id}`), [s3.id, s1.id]);
  t.same(await ids(`?billingPlanId=${starter.id}&customerId=${bo}`), [s3.id]);
  t.same(await ids('?status=canceled'), []);
  t.same(await ids(`?limit=1&starting_after=${s2.id}`), [s1.id]);
  assertError(t, await get(key, '/api/v1/billing/subscriptions?status=gone'), 'IKW-VAL-001', 'status');
  assertError(t, await get(key, '/api/v1/billing/subscriptions?customer=x'), 'IKW-VAL-002', 'customer');

  const one = await get(key, `/api/v1/billing/subscriptions/${s2.id}`);
  assertOk(t, one);
  t.same(one.body, s2);
  assertError(t, await get(key, `/api/v1/billing/subscriptions/${foreign.id}`), 'IKW-RES-001');
  t.notOk((await ids()).includes(foreign.id));
});

t.test('cancel: now or at period end; idempotent by key; a second cancel is 409; others’ are 404', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { key: otherKey } = await svc.sandboxMerchant('Other');
  const p = await plan(key);
  const cus = await customer(key, 'c@example.com');
  const later = await subscribe(key, p.id, cus);
  const now = await subscribe(key, p.id, cus);

  const atEnd = await post(key, `/api/v1/billing/subscriptions/${later.id}/cancel`, { atPeriodEnd: true });
  assertOk(t, atEnd);
  t.match(atEnd.body, { id: later.id, status: 'active', cancelAtPeriodEnd: true, canceledAt: null });

  const cancel = () => post(key, `/api/v1/billing/subscriptions/${now.id}/cancel`, {}, { 'idempotency-key': 'cancel-now' });
  const first = await cancel();
  assertOk(t, first);
  t.match(first.body, { id: now.id, status: 'canceled', canceledAt: /^2026-/ });
  const replay = await cancel();
  t.same(replay.body, first.body);
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  assertError(t, await post(key, `/api/v1/billing/subscriptions/${now.id}/cancel`, { atPeriodEnd: null }), 'IKW-BIL-001', 'id');
  t.match((await get(key, `/api/v1/billing/subscriptions/${now.id}`)).body, { status: 'canceled', canceledAt: first.body.canceledAt }, 'a refused second cancel changes nothing');
  t.same(
    (await get(key, '/api/v1/billing/subscriptions?status=canceled')).body.data.map((s: { id: string }) => s.id),
    [now.id],
  );

  assertError(t, await post(otherKey, `/api/v1/billing/subscriptions/${later.id}/cancel`, {}), 'IKW-RES-001');
  assertError(t, await post(key, '/api/v1/billing/subscriptions/sub_nope/cancel', {}), 'IKW-RES-001');
  assertError(t, await post(key, `/api/v1/billing/subscriptions/${later.id}/cancel`, { atPeriodEnd: 'yes' }), 'IKW-VAL-001', 'atPeriodEnd');
  assertError(t, await post(key, `/api/v1/billing/subscriptions/${later.id}/cancel`, { at_period_end: true }), 'IKW-VAL-002', 'at_period_end');
});

t.test('usage records: listed per subscription, newest first, cursor-paged; the subscription must be the caller’s', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { key: otherKey } = await svc.sandboxMerchant('Other');
  const p = await plan(key, { usageBasedEnabled: true, usageUnitAmount: 2 });
  const cus = await customer(key, 'u@example.com');
  const sub = await subscribe(key, p.id, cus);
  const other = await subscribe(key, p.id, cus);
  const records = [];
  for (let i = 1; i <= 3; i++) {
    const r = await post(key, '/api/v1/billing/usage/records', { subscriptionId: sub.id, meterKey: 'sms', quantity: i * 10, externalId: `ext-${i}` });
    assertOk(t, r);
    records.push(r.body);
  }
  await post(key, '/api/v1/billing/usage/records', { subscriptionId: other.id, meterKey: 'sms', quantity: 1 });
  await post(key, '/api/v1/billing/usage/records', { subscriptionId: sub.id, meterKey: 'sms', quantity: 999, externalId: 'ext-1' }); // a repeat: no new record

  const list = await get(key, `/api/v1/billing/usage/records?subscriptionId=${sub.id}`);
  assertOk(t, list);
  t.match(list.body, { object: 'list', has_more: false });
  t.same(
    list.body.data.map((r: { quantity: number }) => r.quantity),
    [30, 20, 10],
  );
  t.match(list.body.data[0], { id: records[2].id, object: 'usage_record', subscriptionId: sub.id, meterKey: 'sms', externalId: 'ext-3' });
  const page = await get(key, `/api/v1/billing/usage/records?subscriptionId=${sub.id}&limit=2&starting_after=${records[2].id}`);
  t.same(
    page.body.data.map((r: { quantity: number }) => r.quantity),
    [20, 10],
  );

  assertError(t, await get(key, '/api/v1/billing/usage/records'), 'IKW-VAL-001', 'subscriptionId');
  assertError(t, await get(key, '/api/v1/billing/usage/records?subscriptionId=sub_nope'), 'IKW-RES-001');
  assertError(t, await get(otherKey, `/api/v1/billing/usage/records?subscriptionId=${sub.id}`), 'IKW-RES-001');
});
