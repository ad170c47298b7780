/**
 * The billing read models: a rebuild from position zero gives the same rows as the live run, and
 * the public billing events reach the webhook dispatcher (stored as webhook events with the object).
 */
import type { Knex } from 'knex';
import t from 'tap';
import { customersProjection } from '../../projections/customers.js';
import { invoicesProjection } from '../../projections/invoices.js';
import { productsProjection } from '../../projections/products.js';
import { refundsProjection } from '../../projections/refunds.js';
import { subscriptionsProjection } from '../../projections/subscriptions.js';
import { assertOk } from '../support/payment-intents.js';
import { createInvoice, createProduct, createSubscription, creditWallet, setInvoiceStatus, succeededPayment } from '../support/billing.js';
import { startService } from '../support/system.js';

const BILLING = [customersProjection, productsProjection, subscriptionsProjection, invoicesProjection, refundsProjection];

async function snapshot(knex: Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const p of BILLING) for (const table of p.tables) out[table] = await knex(table).select('*').orderBy(1);
  return out;
}

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
  t.ok((live['read.subscriptions'] as { status: string }[]).every((s) => s.status === 'past_due'), 'history includes status changes');

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
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
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
