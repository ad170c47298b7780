/**
 * Subscriptions against the real server, on the manual clock: creation and its first invoice,
 * renewals by the scheduler (one invoice per period, also when several periods pass at once),
 * active ⇄ past_due with the invoice's due date and payment, trials, cancelation now and at the
 * period's end, refused input with code and param, tenant isolation and the events in the store.
 */
import t, { type Test } from '#tap';
import { subscriptionStream } from '#packages/families/billing/subscription/events.js';
import { assertError, assertOk } from '../../support/payments.js';
import { createProduct, createSubscription, creditWallet, DAY_MS, get, monthly, setInvoiceStatus } from '../../support/billing.js';
import { startService, type TestService } from '../../support/system.js';

const T0 = Date.UTC(2026, 0, 1);
const unix = (iso: string) => Date.parse(iso) / 1000;

async function fresh(t: Test): Promise<{ svc: TestService; key: string; price: string; product: string }> {
  const svc = await startService(t, { clockStart: T0 });
  const { key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key, { prices: [monthly(5_000)] });
  return { svc, key, price: product.prices[0].id, product: product.id };
}

const invoicesOf = async (svc: TestService, key: string, sub: string) => (await get(svc, key, '/api/v1/merchant/invoices?limit=100')).data.filter((i: { subscription: string }) => i.subscription === sub).reverse();

t.test('create: active, the first period invoiced at once, due in 7 days', async (t) => {
  const { svc, key, price } = await fresh(t);
  const sub = await createSubscription(svc, key, { customer_email: 'sub@example.com', items: [{ price, quantity: 3 }], metadata: { plan: 'pro' } });
  t.same(Object.keys(sub), [
    'id',
    'object',
    'customer',
    'status',
    'items',
    'current_period_start',
    'current_period_end',
    'currency',
    'cancel_at_period_end',
    'canceled_at',
    'trial_end',
    'latest_invoice',
    'billing_plan',
    'days_until_due',
    'metadata',
    'created',
    'livemode',
  ]);
  t.match(sub, {
    id: /^sub_/,
    object: 'subscription',
    customer: /^cus_/,
    status: 'active',
    current_period_start: unix('2026-01-01T00:00:00Z'),
    current_period_end: unix('2026-02-01T00:00:00Z'),
    currency: 'xof',
    cancel_at_period_end: false,
    canceled_at: null,
    trial_end: null,
    latest_invoice: /^in_/,
    billing_plan: null,
    days_until_due: 7,
    metadata: { plan: 'pro' },
    created: unix('2026-01-01T00:00:00Z'),
    livemode: false,
  });
  t.same(Object.keys(sub.items[0]), ['id', 'price', 'quantity']);
  t.match(sub.items, [{ id: /^si_/, price, quantity: 3 }]);
  t.same(await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`), sub);

  const invoice = await get(svc, key, `/api/v1/merchant/invoices/${sub.latest_invoice}`);
  t.match(invoice, {
    subscription: sub.id,
    customer: sub.customer,
    status: 'open',
    amount_due: 15_000,
    amount_remaining: 15_000,
    due_date: '2026-01-08',
    period_start: sub.current_period_start,
    period_end: sub.current_period_end,
    lines: [{ price, quantity: 3, unit_amount: 5_000, amount: 15_000 }],
  });
  const list = await get(svc, key, '/api/v1/merchant/subscriptions?status=active');
  t.same(
    list.data.map((s: { id: string }) => s.id),
    [sub.id],
  );
  t.same((await get(svc, key, '/api/v1/merchant/subscriptions?status=canceled')).data, []);
});

t.test('renewal: each period end, advanced on the clock, renews and issues one invoice; several periods at once too', async (t) => {
  const { svc, key, price } = await fresh(t);
  const sub = await createSubscription(svc, key, { customer_email: 'r@example.com', items: [{ price }] });
  await setInvoiceStatus(svc, key, sub.latest_invoice, 'paid');

  svc.clock.set(new Date('2026-01-31T23:59:59Z'));
  await svc.system.drain();
  t.equal((await invoicesOf(svc, key, sub.id)).length, 1, 'not before the period ends');

  svc.clock.set(new Date('2026-02-01T00:00:00Z'));
  await svc.system.drain();
  const renewed = await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`);
  t.match(renewed, { status: 'active', current_period_start: unix('2026-02-01T00:00:00Z'), current_period_end: unix('2026-03-01T00:00:00Z') });
  const invoices = await invoicesOf(svc, key, sub.id);
  t.equal(invoices.length, 2);
  t.equal(renewed.latest_invoice, invoices[1].id);
  t.match(invoices[1], { status: 'open', amount_due: 5_000, period_start: unix('2026-02-01T00:00:00Z'), period_end: unix('2026-03-01T00:00:00Z'), due_date: '2026-02-08' });
  await svc.system.drain();
  t.equal((await invoicesOf(svc, key, sub.id)).length, 2, 'draining again renews nothing');

  // Three more period ends pass while nobody looks: three renewals, three invoices.
  svc.clock.set(new Date('2026-05-15T00:00:00Z'));
  await svc.system.drain();
  const after = await invoicesOf(svc, key, sub.id);
  t.same(
    after.map((i: { period_start: number }) => new Date(i.period_start * 1000).toISOString().slice(0, 10)),
    ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01'],
  );
  t.match(await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`), { current_period_start: unix('2026-05-01T00:00:00Z'), current_period_end: unix('2026-06-01T00:00:00Z') });
  const types = (await svc.system.store.readStream(subscriptionStream(sub.id))).map((e) => e.type);
  t.same(types.filter((x) => x === 'subscription.renewed').length, 4);
  t.equal(types[0], 'subscription.created');
  const renewedEvent = (await svc.system.store.readStream(subscriptionStream(sub.id))).find((e) => e.type === 'subscription.renewed')!;
  t.match(renewedEvent.data, { periodStart: '2026-02-01T00:00:00.000Z', periodEnd: '2026-03-01T00:00:00.000Z', invoice: { amountDue: 5_000 }, object: { status: /active|past_due/ } });
  t.match(renewedEvent.metadata, { actor: 'scheduler', correlation_id: sub.id });
});

t.test('past_due: an invoice unpaid at its due date; active again once it is paid (out of band or from the wallet)', async (t) => {
  const { svc, key, price } = await fresh(t);
  const sub = await createSubscription(svc, key, { customer_email: 'late@example.com', items: [{ price }], days_until_due: 3 });
  svc.clock.set(new Date('2026-01-03T23:59:59Z'));
  await svc.system.drain();
  t.equal((await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`)).status, 'active', 'not yet due');
  svc.clock.set(new Date('2026-01-04T00:00:00Z'));
  await svc.system.drain();
  t.equal((await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`)).status, 'past_due');
  t.same(
    (await get(svc, key, '/api/v1/merchant/subscriptions?status=past_due')).data.map((s: { id: string }) => s.id),
    [sub.id],
  );
  await setInvoiceStatus(svc, key, sub.latest_invoice, 'paid');
  t.equal((await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`)).status, 'active');

  // Next period: overdue again, then paid from the customer's wallet.
  svc.clock.set(new Date('2026-02-05T00:00:00Z'));
  await svc.system.drain();
  const late = await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`);
  t.equal(late.status, 'past_due');
  await creditWallet(svc, key, sub.customer, 5_000);
  const paid = await svc.request('POST', `/api/v1/merchant/billing/wallet/invoices/${late.latest_invoice}/apply`, { key });
  assertOk(t, paid);
  t.equal(paid.body.status, 'paid');
  t.equal((await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`)).status, 'active');

  // Voiding an overdue invoice also settles it.
  svc.clock.set(new Date('2026-03-05T00:00:00Z'));
  await svc.system.drain();
  const again = await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`);
  t.equal(again.status, 'past_due');
  await setInvoiceStatus(svc, key, again.latest_invoice, 'void');
  t.equal((await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`)).status, 'active');
  const updates = (await svc.system.store.readStream(subscriptionStream(sub.id))).filter((e) => e.type === 'subscription.updated').map((e) => (e.data as { object: { status: string } }).object.status);
  t.same(updates, ['past_due', 'active', 'past_due', 'active', 'past_due', 'active']);
});

t.test('trial: trialing without an invoice, then active with the first invoice at the trial end', async (t) => {
  const { svc, key, price } = await fresh(t);
  const sub = await createSubscription(svc, key, { customer_email: 'trial@example.com', items: [{ price }], trial_period_days: 14 });
  t.match(sub, { status: 'trialing', latest_invoice: null, trial_end: unix('2026-01-15T00:00:00Z'), current_period_end: unix('2026-01-15T00:00:00Z') });
  t.same(await invoicesOf(svc, key, sub.id), []);
  svc.clock.set(new Date('2026-01-15T00:00:00Z'));
  await svc.system.drain();
  const active = await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`);
  t.match(active, { status: 'active', current_period_start: unix('2026-01-15T00:00:00Z'), current_period_end: unix('2026-02-15T00:00:00Z'), trial_end: unix('2026-01-15T00:00:00Z') });
  t.match(await invoicesOf(svc, key, sub.id), [{ id: active.latest_invoice, amount_due: 5_000, status: 'open' }]);
});

t.test('cancel now: canceled, no more renewals, the product free to delete; cancel again is refused', async (t) => {
  const { svc, key, price, product } = await fresh(t);
  const sub = await createSubscription(svc, key, { customer_email: 'c@example.com', items: [{ price }] });
  svc.clock.advance(DAY_MS);
  const res = await svc.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key });
  assertOk(t, res);
  t.match(res.body, { status: 'canceled', canceled_at: unix('2026-01-02T00:00:00Z') });
  assertError(t, await svc.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key }), 'IKW-BIL-001', 'id');
  svc.clock.set(new Date('2026-04-01T00:00:00Z'));
  await svc.system.drain();
  t.equal((await invoicesOf(svc, key, sub.id)).length, 1, 'no renewal after cancel');
  t.equal((await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`)).status, 'canceled', 'and no past_due either');
  assertOk(t, await svc.request('DELETE', `/api/v1/merchant/products/${product}`, { key }));
  t.same(
    (await get(svc, key, '/api/v1/merchant/subscriptions?status=canceled')).data.map((s: { id: string }) => s.id),
    [sub.id],
  );
});

t.test('cancel at period end: stays active until then, then canceled without a new invoice', async (t) => {
  const { svc, key, price } = await fresh(t);
  const sub = await createSubscription(svc, key, { customer_email: 'pe@example.com', items: [{ price }] });
  await setInvoiceStatus(svc, key, sub.latest_invoice, 'paid');
  const res = await svc.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key, body: { at_period_end: true } });
  assertOk(t, res);
  t.match(res.body, { status: 'active', cancel_at_period_end: true, canceled_at: null });
  assertOk(t, await svc.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key, body: { at_period_end: true } }));
  svc.clock.set(new Date('2026-02-01T00:00:00Z'));
  await svc.system.drain();
  t.match(await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`), { status: 'canceled', canceled_at: unix('2026-02-01T00:00:00Z') });
  t.equal((await invoicesOf(svc, key, sub.id)).length, 1);
  const types = (await svc.system.store.readStream(subscriptionStream(sub.id))).map((e) => e.type);
  t.same(types, ['subscription.created', 'subscription.updated', 'subscription.canceled']);
});

t.test('bad input: unknown customer or price, quantity zero, one-time or mixed prices, inactive product', async (t) => {
  const { svc, key, price, product } = await fresh(t);
  const yearly = await createProduct(svc, key, {
    prices: [{ currency: 'xof', unit_amount: 50_000, recurring: { interval: 'year' } }, { currency: 'xof', unit_amount: 9_000 }, monthly(100), { currency: 'ghs', unit_amount: 1, recurring: { interval: 'month' } }],
  });
  const [year, once, month2, ghs] = yearly.prices.map((p: { id: string }) => p.id);
  const post = (body: Record<string, unknown>) => svc.request('POST', '/api/v1/merchant/subscriptions', { key, body });
  assertError(t, await post({ customer: 'cus_nope', items: [{ price }] }), 'IKW-BIL-006', 'customer');
  assertError(t, await post({ items: [{ price }] }), 'IKW-VAL-001', 'customer');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: 'price_nope' }] }), 'IKW-BIL-007', 'items.0.price');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price, quantity: 0 }] }), 'IKW-VAL-001', 'items.0.quantity');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price, quantity: 1.5 }] }), 'IKW-VAL-001', 'items.0.quantity');
  assertError(t, await post({ customer_email: 'a@example.com', items: [] }), 'IKW-VAL-001', 'items');
  assertError(t, await post({ customer_email: 'a@example.com' }), 'IKW-VAL-001', 'items');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: once }] }), 'IKW-BIL-008', 'items.0.price');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price }, { price: year }] }), 'IKW-BIL-008', 'items.1.price');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price }, { price: ghs }] }), 'IKW-BIL-008', 'items.1.price');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price }, { price }] }), 'IKW-VAL-001', 'items.1.price');
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price }], trial_period_days: 0 }), 'IKW-VAL-001', 'trial_period_days');
  assertError(t, await post({ customer_email: 'not-an-email', items: [{ price }] }), 'IKW-VAL-001', 'customer_email');
  await svc.request('PATCH', `/api/v1/merchant/products/${product}/active`, { key, body: { active: false } });
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: month2 }, { price }] }), 'IKW-BIL-008', 'items.1.price');
  const stranger = await svc.merchant('Stranger');
  const theirs = await createProduct(svc, stranger.api_keys.sandbox);
  assertError(t, await post({ customer_email: 'a@example.com', items: [{ price: theirs.prices[0].id }] }), 'IKW-BIL-007', 'items.0.price');
  // Nothing was left attached to the products by the refused attempts.
  assertOk(t, await svc.request('DELETE', `/api/v1/merchant/products/${yearly.id}`, { key }));
  t.same((await get(svc, key, '/api/v1/merchant/subscriptions')).data, []);
});

t.test("tenant isolation: another merchant's subscriptions are 404 and never listed", async (t) => {
  const { svc, key, price } = await fresh(t);
  const sub = await createSubscription(svc, key, { customer_email: 'mine@example.com', items: [{ price }] });
  const stranger = await svc.merchant('Stranger');
  const other = stranger.api_keys.sandbox;
  assertError(t, await svc.request('GET', `/api/v1/merchant/subscriptions/${sub.id}`, { key: other }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key: other }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', '/api/v1/merchant/subscriptions', { key: other, body: { customer: sub.customer, items: [{ price }] } }), 'IKW-BIL-006', 'customer');
  t.same((await get(svc, other, '/api/v1/merchant/subscriptions')).data, []);
  t.equal((await get(svc, key, `/api/v1/merchant/subscriptions/${sub.id}`)).status, 'active');
});
