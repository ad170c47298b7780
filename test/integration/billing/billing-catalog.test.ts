/**
 * Customers and products against the real server: the customer list and its search, the wallet
 * balance on the Customer, the product catalogue (create, update, prices, activation, status
 * filter, delete refused while a subscription uses it and archived otherwise), tenant isolation,
 * bad input with its code and param, and the events in the store.
 */
import t from '#tap';
import { customerStream } from '#packages/families/billing/customer/events.js';
import { productStream } from '#packages/families/billing/product/events.js';
import { assertError, assertOk, createIntent } from '../../support/payments.js';
import { createProduct, createSubscription, creditWallet, get, monthly, walletBalance } from '../../support/billing.js';
import { startService } from '../../support/system.js';

const svc = await startService(t);

t.test('customers: created by payment intents and billing routes, listed newest first, searched by name, e-mail or phone', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const a = await createIntent(svc, key, { customer_email: 'ada@example.com' });
  svc.clock.advance(1000);
  const b = await createIntent(svc, key, { customer_phone: '77 123 45 67' });
  svc.clock.advance(1000);
  const product = await createProduct(svc, key);
  const sub = await createSubscription(svc, key, { customer_email: 'grace@example.com', customer_name: 'Grace Hopper', items: [{ price: product.prices[0].id, quantity: 1 }] });

  const list = await get(svc, key, '/api/v1/merchant/customers');
  t.match(list, { object: 'list', page: 1, limit: 20, total: 3, has_more: false });
  t.same(
    list.data.map((c: { id: string }) => c.id),
    [sub.customer, b.customer, a.customer],
    'newest first',
  );
  const grace = list.data[0];
  t.same(Object.keys(grace), ['id', 'object', 'name', 'email', 'phone', 'currency', 'balance', 'metadata', 'created', 'livemode']);
  t.match(grace, { id: /^cus_/, object: 'customer', name: 'Grace Hopper', email: 'grace@example.com', phone: null, balance: 0, metadata: {}, livemode: false });
  t.equal(grace.created, Math.floor(svc.clock.now().getTime() / 1000));

  const search = async (q: string) => (await get(svc, key, `/api/v1/merchant/customers?search=${encodeURIComponent(q)}`)).data.map((c: { id: string }) => c.id);
  t.same(await search('hopper'), [sub.customer], 'name, any case');
  t.same(await search('ADA@'), [a.customer], 'e-mail');
  t.same(await search('+22177123'), [b.customer], 'phone');
  t.same(await search('example.com'), [sub.customer, a.customer]);
  t.same(await search('%'), [], '% is literal, not a wildcard');
  t.same(await search('nobody'), []);

  const paged = await get(svc, key, '/api/v1/merchant/customers?limit=2&page=2');
  t.match(paged, { page: 2, limit: 2, total: 3, has_more: false });
  t.same(
    paged.data.map((c: { id: string }) => c.id),
    [a.customer],
  );

  const one = await get(svc, key, `/api/v1/merchant/customers/${b.customer}`);
  t.match(one, { id: b.customer, phone: '+221771234567', email: null, balance: 0 });
});

t.test('customer balance is the wallet: credits add to it, in one currency', async (t) => {
  const { merchant: m, key } = await svc.sandboxMerchant();
  const a = await createIntent(svc, key, { customer_email: 'wallet@example.com' });
  const c1 = await creditWallet(svc, key, a.customer, 2_500);
  t.match(c1, { id: a.customer, balance: 2_500, currency: 'xof' });
  const c2 = await creditWallet(svc, key, a.customer, 500, 'XOF');
  t.equal(c2.balance, 3_000);
  t.equal(await walletBalance(svc, key, a.customer), 3_000);
  assertError(t, await svc.request('POST', `/api/v1/merchant/billing/wallet/customers/${a.customer}/credit`, { key, body: { amount: 10, currency: 'ghs' } }), 'IKW-BIL-010', 'currency');
  assertError(t, await svc.request('POST', `/api/v1/merchant/billing/wallet/customers/${a.customer}/credit`, { key, body: { amount: 0, currency: 'xof' } }), 'IKW-VAL-001', 'amount');
  assertError(t, await svc.request('POST', '/api/v1/merchant/billing/wallet/customers/cus_nope/credit', { key, body: { amount: 10, currency: 'xof' } }), 'IKW-RES-001', 'customerId');
  const events = await svc.system.store.readStream(customerStream(a.customer));
  t.same(
    events.map((e) => e.type),
    ['customer.created', 'customer.balance_credited', 'customer.balance_credited'],
  );
  t.match(events[1]!.data, { amount: 2_500, currency: 'xof', reason: 'merchant_credit', object: { balance: 2_500 } });
  t.match(events[1]!.metadata, { merchant_id: m.id, environment: 'sandbox', correlation_id: a.customer });
});

t.test('products: create with prices, get, update, add prices, activate and deactivate, list by status', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const created = await createProduct(svc, key, {
    name: 'Fibre 100',
    description: 'Home internet',
    metadata: { sku: 'F100' },
    prices: [monthly(15_000), { currency: 'XOF', unit_amount: 25_000, recurring: null }, { currency: 'xof', unit_amount: 5, recurring: { interval: 'month', usage_type: 'metered' } }],
  });
  t.same(Object.keys(created), ['id', 'object', 'name', 'description', 'active', 'status', 'prices', 'metadata', 'created', 'updated', 'livemode']);
  t.match(created, { id: /^prod_/, object: 'product', name: 'Fibre 100', description: 'Home internet', active: true, status: 'active', metadata: { sku: 'F100' }, livemode: false });
  t.equal(created.prices.length, 3);
  t.match(created.prices[0], { id: /^price_/, object: 'price', product: created.id, currency: 'xof', unit_amount: 15_000, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' } });
  t.match(created.prices[1], { currency: 'xof', unit_amount: 25_000, recurring: null });
  t.match(created.prices[2], { recurring: { interval: 'month', interval_count: 1, usage_type: 'metered' } });
  t.same(await get(svc, key, `/api/v1/merchant/products/${created.id}`), created, 'GET returns what POST did');

  svc.clock.advance(60_000);
  const updated = await svc.request('PATCH', `/api/v1/merchant/products/${created.id}`, {
    key,
    body: { name: 'Fibre 200', description: null, metadata: { sku: '', tier: 'gold' }, add_prices: [{ currency: 'xof', unit_amount: 150_000, recurring: { interval: 'year' } }] },
  });
  assertOk(t, updated);
  t.match(updated.body, { name: 'Fibre 200', description: null, metadata: { tier: 'gold' } });
  t.notOk('sku' in updated.body.metadata, 'an empty value removes the key');
  t.equal(updated.body.prices.length, 4);
  t.same(updated.body.prices.slice(0, 3), created.prices, 'existing prices unchanged');
  t.equal(updated.body.updated, created.updated + 60);

  const off = await svc.request('PATCH', `/api/v1/merchant/products/${created.id}/active`, { key, body: { active: false } });
  assertOk(t, off);
  t.match(off.body, { active: false, status: 'inactive' });
  const other = await createProduct(svc, key, { name: 'Other' });
  const list = async (q = '') => (await get(svc, key, `/api/v1/merchant/products${q}`)).data.map((p: { id: string }) => p.id);
  t.same(await list(), [other.id, created.id]);
  t.same(await list('?status=inactive'), [created.id]);
  t.same(await list('?status=active'), [other.id]);
  const on = await svc.request('PATCH', `/api/v1/merchant/products/${created.id}/active`, { key, body: { active: true } });
  t.match(on.body, { active: true, status: 'active' });
  t.same(await list('?status=inactive'), []);

  const events = await svc.system.store.readStream(productStream(created.id));
  t.same(
    events.map((e) => e.type),
    ['product.created', 'product.updated', 'product.updated', 'product.updated'],
  );
  t.match(events[2]!.data, { active: false, object: { status: 'inactive' } });
});

t.test('product delete: refused while a subscription uses it, archived once it is canceled, kept in history', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key);
  const sub = await createSubscription(svc, key, { customer_email: 'x@example.com', items: [{ price: product.prices[0].id }] });

  const refused = await svc.request('DELETE', `/api/v1/merchant/products/${product.id}`, { key });
  assertError(t, refused, 'IKW-BIL-002', 'id');
  t.match(refused.body.message, sub.id);
  t.equal((await get(svc, key, `/api/v1/merchant/products/${product.id}`)).status, 'active', 'nothing changed');

  assertOk(t, await svc.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key }));
  const deleted = await svc.request('DELETE', `/api/v1/merchant/products/${product.id}`, { key });
  assertOk(t, deleted);
  t.match(deleted.body, { id: product.id, status: 'archived', active: false });
  t.equal((await get(svc, key, `/api/v1/merchant/products/${product.id}`)).status, 'archived', 'still readable');
  t.same((await get(svc, key, '/api/v1/merchant/products')).data, [], 'left out of the default list');
  t.equal((await get(svc, key, '/api/v1/merchant/products?status=archived')).data[0].id, product.id);
  assertOk(t, await svc.request('DELETE', `/api/v1/merchant/products/${product.id}`, { key })); // deleting again is harmless
  assertError(t, await svc.request('PATCH', `/api/v1/merchant/products/${product.id}`, { key, body: { name: 'x' } }), 'IKW-RES-002', 'id');
  assertError(t, await svc.request('POST', '/api/v1/merchant/subscriptions', { key, body: { customer_email: 'y@example.com', items: [{ price: product.prices[0].id }] } }), 'IKW-BIL-008', 'items.0.price');
  const types = (await svc.system.store.readStream(productStream(product.id))).map((e) => e.type);
  t.same(types, ['product.created', 'product.subscription_attached', 'product.subscription_detached', 'product.deleted']);
});

t.test('products: bad input names the field', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const post = (body: unknown) => svc.request('POST', '/api/v1/merchant/products', { key, body });
  assertError(t, await post({}), 'IKW-VAL-001', 'name');
  assertError(t, await post({ name: '' }), 'IKW-VAL-001', 'name');
  assertError(t, await post({ name: 'x', prices: [{ currency: 'zzz', unit_amount: 1 }] }), 'IKW-VAL-003', 'prices.0.currency');
  assertError(t, await post({ name: 'x', prices: [{ currency: 'xof', unit_amount: -1 }] }), 'IKW-VAL-001', 'prices.0.unit_amount');
  assertError(t, await post({ name: 'x', prices: [{ currency: 'xof', unit_amount: 1.5 }] }), 'IKW-VAL-001', 'prices.0.unit_amount');
  assertError(t, await post({ name: 'x', prices: [monthly(1, { interval: 'fortnight' })] }), 'IKW-VAL-001', 'prices.0.recurring.interval');
  assertError(t, await post({ name: 'x', prices: [monthly(1, { interval_count: 37 })] }), 'IKW-VAL-001', 'prices.0.recurring.interval_count');
  assertError(t, await post({ name: 'x', colour: 'red' }), 'IKW-VAL-002', 'colour');
  assertError(t, await post({ name: 'x', metadata: { a: 1 } }), 'IKW-VAL-001', 'metadata.a');
  const p = await createProduct(svc, key);
  assertError(t, await svc.request('PATCH', `/api/v1/merchant/products/${p.id}`, { key, body: {} }), 'IKW-VAL-001');
  assertError(t, await svc.request('PATCH', `/api/v1/merchant/products/${p.id}/active`, { key, body: { active: 'yes' } }), 'IKW-VAL-001', 'active');
  assertError(t, await svc.request('GET', '/api/v1/merchant/products?status=gone', { key }), 'IKW-VAL-001', 'status');
  assertError(t, await svc.request('GET', '/api/v1/merchant/products/prod_nope', { key }), 'IKW-RES-001', 'id');
});

t.test("tenant isolation: another merchant's customers and products are 404, and never listed", async (t) => {
  const mine = await svc.merchant('Mine');
  const theirs = await svc.merchant('Theirs');
  const key = mine.api_keys.sandbox;
  const other = theirs.api_keys.sandbox;
  const intent = await createIntent(svc, other, { customer_email: 'private@example.com' });
  const product = await createProduct(svc, other);
  assertError(t, await svc.request('GET', `/api/v1/merchant/customers/${intent.customer}`, { key }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', `/api/v1/merchant/products/${product.id}`, { key }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('PATCH', `/api/v1/merchant/products/${product.id}`, { key, body: { name: 'mine now' } }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('PATCH', `/api/v1/merchant/products/${product.id}/active`, { key, body: { active: false } }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('DELETE', `/api/v1/merchant/products/${product.id}`, { key }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `/api/v1/merchant/billing/wallet/customers/${intent.customer}/credit`, { key, body: { amount: 1, currency: 'xof' } }), 'IKW-RES-001', 'customerId');
  assertError(t, await svc.request('GET', `/api/v1/merchant/customers/${intent.customer}`, { key: theirs.api_keys.live }), 'IKW-RES-001', 'id');
  t.same((await get(svc, key, '/api/v1/merchant/customers?search=private')).data, []);
  t.same((await get(svc, key, '/api/v1/merchant/products')).data, []);
  t.equal((await get(svc, other, `/api/v1/merchant/products/${product.id}`)).name, 'Pro plan', 'untouched');
});
