/**
 * What the dashboard's billing pages need of the merchant routes: a customer added by e-mail
 * (the same address is the same customer), subscriptions and invoices of one customer, and an
 * invoice as a PDF; each kept to its merchant and environment.
 */
import t from '#tap';
import { assertError } from '../../support/assertions.js';
import { createProduct, createSubscription, get } from '../../support/billing.js';
import { startService } from '../../support/system.js';

const svc = await startService(t);

t.test('POST /api/v1/merchant/customers: added by e-mail, the same address answered again; bad input refused', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const res = await svc.request('POST', '/api/v1/merchant/customers', { key, body: { email: 'Awa@Example.com', name: 'Awa Diop' } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: /^cus_/, object: 'customer', email: 'awa@example.com', name: 'Awa Diop', balance: 0, livemode: false });
  t.same(await get(svc, key, `/api/v1/merchant/customers/${res.body.id}`), res.body);
  const again = await svc.request('POST', '/api/v1/merchant/customers', { key, body: { email: 'awa@example.com' } });
  t.equal(again.body.id, res.body.id, 'one address, one customer');
  t.equal(again.body.name, 'Awa Diop');
  t.same(
    (await get(svc, key, '/api/v1/merchant/customers')).data.map((c: { id: string }) => c.id),
    [res.body.id],
  );

  assertError(t, await svc.request('POST', '/api/v1/merchant/customers', { key, body: { email: 'not an address' } }), 'IKW-VAL-001', 'email');
  assertError(t, await svc.request('POST', '/api/v1/merchant/customers', { key, body: { name: 'No e-mail' } }), 'IKW-VAL-001');
  assertError(t, await svc.request('POST', '/api/v1/merchant/customers', { key, body: { email: 'a@example.com', name: '' } }), 'IKW-VAL-001', 'name');

  // Live and another merchant have their own customer for the same address.
  const live = await svc.request('POST', '/api/v1/merchant/customers', { key: merchant.api_keys.live, body: { email: 'awa@example.com' } });
  t.equal(live.status, 200);
  t.not(live.body.id, res.body.id);
  t.equal(live.body.livemode, true);
  t.equal((await svc.request('GET', `/api/v1/merchant/customers/${res.body.id}`, { key: merchant.api_keys.live })).status, 404);
  const other = await svc.sandboxMerchant('Other');
  t.equal((await svc.request('GET', `/api/v1/merchant/customers/${res.body.id}`, { key: other.key })).status, 404);
  t.same((await get(svc, other.key, '/api/v1/merchant/customers')).data, []);
});

t.test('subscriptions and invoices of one customer; another merchant’s customer lists nothing', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key);
  const a = await createSubscription(svc, key, { customer_email: 'a@example.com', items: [{ price: product.prices[0].id }] });
  const b = await createSubscription(svc, key, { customer_email: 'b@example.com', items: [{ price: product.prices[0].id }] });
  const ids = async (path: string, k = key) => (await get(svc, k, path)).data.map((o: { id: string }) => o.id);
  t.same(await ids(`/api/v1/merchant/subscriptions?customer=${a.customer}`), [a.id]);
  t.same(await ids(`/api/v1/merchant/subscriptions?customer=${b.customer}&status=active`), [b.id]);
  t.same(await ids('/api/v1/merchant/subscriptions'), [b.id, a.id]);
  const invoicesOfA = (await get(svc, key, `/api/v1/merchant/invoices?customer=${a.customer}`)).data;
  t.equal(invoicesOfA.length, 1, 'the first period, invoiced at once');
  t.match(invoicesOfA[0], { customer: a.customer, subscription: a.id, status: 'open', amount_due: 5_000 });
  t.same(await ids(`/api/v1/merchant/invoices?subscription=${b.id}`), [b.latest_invoice]);
  t.same(await ids(`/api/v1/merchant/invoices?customer=${a.customer}&status=paid`), []);

  const other = await svc.sandboxMerchant('Other');
  t.same(await ids(`/api/v1/merchant/subscriptions?customer=${a.customer}`, other.key), []);
  t.same(await ids(`/api/v1/merchant/invoices?customer=${a.customer}`, other.key), []);
});

t.test('GET /api/v1/merchant/invoices/{id}/pdf: the invoice as a PDF; another merchant’s is a 404', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key);
  const sub = await createSubscription(svc, key, { customer_email: 'a@example.com', items: [{ price: product.prices[0].id }] });
  const res = await fetch(`${svc.baseUrl}/api/v1/merchant/invoices/${sub.latest_invoice}/pdf`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/pdf');
  t.match(res.headers.get('content-disposition'), `${sub.latest_invoice}.pdf`);
  const bytes = Buffer.from(await res.arrayBuffer());
  t.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');

  const other = await svc.sandboxMerchant('Other');
  assertError(t, await svc.request('GET', `/api/v1/merchant/invoices/${sub.latest_invoice}/pdf`, { key: other.key }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('GET', `/api/v1/merchant/invoices/${sub.latest_invoice}/pdf`, { key: merchant.api_keys.live }), 'IKW-RES-001', 'id');
});
