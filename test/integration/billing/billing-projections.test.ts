/**
 * The billing read models: a rebuild from position zero gives the same rows as the live run, and
 * the public billing events reach the webhook dispatcher (stored as webhook events with the object).
 */
import type { Knex } from 'knex';
import t from '#tap';
import { customerAggregate, toCustomerObject } from '#packages/families/billing/customer/render.js';
import type { ProductCommand } from '#packages/families/billing/product/decider.js';
import { productAggregate, toProductObject } from '#packages/families/billing/product/render.js';
import type { Price } from '#packages/families/billing/product/events.js';
import { customersProjection } from '#packages/families/billing/read/customers.js';
import { invoicesProjection } from '#packages/families/billing/read/invoices.js';
import { productsProjection } from '#packages/families/billing/read/products.js';
import { refundsProjection } from '#packages/families/billing/read/refunds.js';
import { subscriptionsProjection } from '#packages/families/billing/read/subscriptions.js';
import { assertOk } from '../../support/payments.js';
import { createInvoice, createProduct, createSubscription, creditWallet, setInvoiceStatus, succeededPayment } from '../../support/billing.js';
import { spec } from '../../support/decider-spec.js';
import { projectionSpec, readModelRows } from '../../support/projection-spec.js';
import { startService } from '../../support/system.js';

const BILLING = [customersProjection, productsProjection, subscriptionsProjection, invoicesProjection, refundsProjection];
const snapshot = (knex: Knex) =>
  readModelRows(
    knex,
    BILLING.flatMap((p) => p.tables),
  );

t.test('read.products and read.product_prices: the product as its latest event left it, every price it ever had', async (t) => {
  const at = new Date('2026-01-01T00:00:00Z');
  const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
  const price = (id: string, unitAmount: number): Price => ({ id, object: 'price', product: 'prod_1', currency: 'xof', unit_amount: unitAmount, recurring: null, created: 0 });
  const products = spec(productAggregate);
  const lifecycle: ProductCommand[] = [
    { type: 'create', product: { id: 'prod_1', merchantId: 'acct_1', environment: 'sandbox', name: 'Pro', description: null, active: true, prices: [price('price_1', 500)], metadata: {}, createdAt: at.toISOString() } },
    { type: 'update', owner, at, changes: { name: 'Pro+', addedPrices: [price('price_2', 900)] } },
    { type: 'attach', owner, at, subscriptionId: 'sub_1', prices: [{ id: 'price_1', field: 'items.0.price' }] },
    { type: 'detach', owner, at, subscriptionId: 'sub_1' },
    { type: 'delete', owner, at },
  ];
  const events = products.history(...lifecycle);
  const read = await projectionSpec(t, productsProjection);
  await read.given(events.slice(0, 1));
  await read.thenRows(t, 'read.products', [{ id: 'prod_1', merchant_id: 'acct_1', environment: 'sandbox', status: 'active', object: toProductObject(products.state(events.slice(0, 1))) }], 'created');
  await read.given(events.slice(1));
  const archived = toProductObject(products.state(events));
  t.match(archived, { name: 'Pro+', status: 'archived' });
  const rows = await read.thenRows(t, 'read.products', [{ id: 'prod_1', status: 'archived', object: archived }], 'archived, renamed, both prices');
  const prices = await read.thenRows(t, 'read.product_prices', [
    { id: 'price_1', product_id: 'prod_1', merchant_id: 'acct_1', environment: 'sandbox', price: price('price_1', 500) },
    { id: 'price_2', product_id: 'prod_1', merchant_id: 'acct_1', environment: 'sandbox', price: price('price_2', 900) },
  ]);
  await read.given(events);
  t.same(await read.rows('read.products'), rows, 'the whole history again changes nothing');
  t.same(await read.rows('read.product_prices'), prices);
});

t.test('read.customers: the wallet balance and currency follow credits, applications and returns', async (t) => {
  const at = new Date('2026-01-01T00:00:00Z');
  const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
  const customers = spec(customerAggregate);
  const events = customers.history(
    { type: 'create', customer: { id: 'cus_1', merchantId: 'acct_1', environment: 'sandbox', name: null, email: 'a@example.com', phone: null, currency: null, metadata: { tier: 'gold' }, createdAt: at.toISOString() } },
    { type: 'create', customer: { id: 'cus_1', merchantId: 'acct_1', environment: 'sandbox', name: 'Ada', email: 'a@example.com', phone: null, currency: null, metadata: {}, createdAt: at.toISOString() } },
    { type: 'credit', owner, at, creditId: 'c1', amount: 3_000, currency: 'xof', reason: 'merchant_credit', source: null },
    { type: 'apply_to_invoice', owner, at, applicationId: 'a1', invoiceId: 'in_1', currency: 'xof', maxAmount: 2_500 },
    { type: 'settle_application', owner, at, applicationId: 'a1', accepted: 2_000 },
  );
  t.match(toCustomerObject(customers.state(events)), { name: 'Ada', balance: 1_000, currency: 'xof' });
  const read = await projectionSpec(t, customersProjection);
  await read.given(events);
  const rows = await read.thenRows(t, 'read.customers', [
    { id: 'cus_1', merchant_id: 'acct_1', environment: 'sandbox', name: 'Ada', email: 'a@example.com', phone: null, currency: 'xof', balance: 1_000, metadata: { tier: 'gold' }, created_at: at },
  ]);
  await read.given(events);
  t.same(await read.rows('read.customers'), rows, 'the whole history again changes nothing');
});

t.test('billing read models: a rebuild from position zero gives the same rows as the live run', async (t) => {
  const svc = await startService(t);
  for (let i = 0; i < 2; i++) {
    const m = await svc.merchant(`Merchant ${i}`);
    const key = m.api_keys.sandbox;
    const product = await createProduct(svc, key, { name: `Plan ${i}` });
    await svc.request('PATCH', `/api/v1/merchant/products/${product.id}`, { key, body: { description: 'changed', add_prices: [{ currency: 'xof', unit_amount: 900 }] } });
    const spare = await createProduct(svc, key, { name: 'Spare' });
    await svc.request('DELETE', `/api/v1/merchant/products/${spare.id}`, { key });
    const sub = await createSubscription(svc, key, { customer_email: `s${i}@example.com`, customer_name: `Sub ${i}`, items: [{ price: product.prices[0].id, quantity: 2 }] });
    await creditWallet(svc, key, sub.customer, 4_000);
    assertOk(t, await svc.request('POST', `/api/v1/merchant/billing/wallet/invoices/${sub.latest_invoice}/apply`, { key }));
    const inv = await createInvoice(svc, key, { customer: sub.customer, currency: 'xof', amount_due: 1_500 });
    await setInvoiceStatus(svc, key, inv.id, 'open');
    await setInvoiceStatus(svc, key, inv.id, 'uncollectible');
    await succeededPayment(svc, key, 20_000);
    const pi = await succeededPayment(svc, key, 10_000);
    assertOk(t, await svc.request('POST', `/api/v1/merchant/payments/${pi.id}/refund`, { key, body: { amount: 2_500, reason: 'duplicate' } }));
    svc.clock.advance(40 * 86_400_000);
    await svc.system.drain(); // renewals and past_due
  }
  const live = await snapshot(svc.system.knex);
  t.equal(live['read.products']!.length, 4);
  t.equal(live['read.product_prices']!.length, 6);
  t.equal(live['read.subscriptions']!.length, 2);
  t.ok(live['read.invoices']!.length >= 6, 'subscription and manual invoices');
  t.equal(live['read.refunds']!.length, 2);
  t.ok(
    (live['read.subscriptions'] as { status: string }[]).every((s) => s.status === 'past_due'),
    'history includes status changes',
  );

  await svc.system.knex('read.invoices').update({ status: 'wrong' });
  await svc.system.knex('read.product_prices').delete();
  await svc.system.knex('read.customers').update({ balance: 999 });
  await svc.system.rebuildProjections(BILLING.map((p) => p.name));
  t.same(await snapshot(svc.system.knex), live);
  await svc.system.rebuildProjections();
  t.same(await snapshot(svc.system.knex), live, 'and again, with every read model');
});

t.test('public billing events are dispatched as webhook events carrying the object', async (t) => {
  const svc = await startService(t);
  const { merchant: m, key } = await svc.sandboxMerchant();
  const product = await createProduct(svc, key);
  const sub = await createSubscription(svc, key, { customer_email: 'hook@example.com', items: [{ price: product.prices[0].id }] });
  await setInvoiceStatus(svc, key, sub.latest_invoice, 'paid');
  await svc.request('POST', `/api/v1/merchant/subscriptions/${sub.id}/cancel`, { key });
  await succeededPayment(svc, key, 20_000);
  const pi = await succeededPayment(svc, key, 10_000);
  await svc.request('POST', `/api/v1/merchant/payments/${pi.id}/refund`, { key, body: { amount: 100 } });
  await creditWallet(svc, key, sub.customer, 10);
  await svc.system.drain();
  const rows = await svc.system.knex('webhook_events').select('type', 'payload').where({ merchant_id: m.id }).orderBy('created_at');
  const types = new Set(rows.map((r: { type: string }) => r.type));
  for (const type of ['customer.created', 'customer.balance_credited', 'product.created', 'subscription.created', 'subscription.canceled', 'invoice.created', 'invoice.finalized', 'invoice.paid', 'refund.created', 'refund.succeeded']) {
    t.ok(types.has(type), type);
  }
  t.notOk(types.has('product.subscription_attached'), 'internal events stay internal');
  const paid = rows.find((r: { type: string }) => r.type === 'invoice.paid');
  const payload = JSON.parse(paid.payload);
  t.match(payload, { id: /^evt_/, object: 'event', type: 'invoice.paid', livemode: false, data: { id: sub.latest_invoice, object: 'invoice', status: 'paid' } });
});
