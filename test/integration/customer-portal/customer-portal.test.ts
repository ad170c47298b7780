/**
 * The customer portal against the real server: sign-in with a code (a sandbox merchant's message to
 * a customer outside its team is held in the outbox, where it is read here; how the mail leaves is
 * customer-portal-mail.test.ts), wrong and expired codes, the same answer for an unknown address; then the
 * customer's own invoices (paying an open one), subscriptions (cancel at period end), payments
 * with refunds, receipts and contact details; another customer's objects are 404.
 */
import t, { type Test } from '#tap';
import { portalCodeSentTo, portalSignIn } from '../../support/customer-portal.js';
import { createInvoice, createProduct, createSubscription, openInvoice, succeededPayment } from '../../support/billing.js';
import { assertError, assertOk, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const { merchant, key } = await svc.sandboxMerchant('Mango stall');
const other = await svc.sandboxMerchant('Other stall');

/** The portal codes written so far: the outbox's rows. */
const codesWritten = async () => (await svc.system.outbox.kept({ purpose: 'customer_portal_code' }, 1_000)).length;

/** The six-digit code of the last message to `to`. */
const codeSentTo = (to: string) => portalCodeSentTo(svc, to);

const signIn = (t: Test, email: string, merchantId = merchant.id) => portalSignIn(t, svc, merchantId, email);

const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

// Awa and Bob are customers of the merchant, each with an open invoice; Awa also subscribes.
const awaInvoice = await openInvoice(svc, key, { customer_email: 'awa@example.com', currency: 'xof', amount_due: 3_000 });
const product = await createProduct(svc, key);
const awaSubscription = await createSubscription(svc, key, { customer: awaInvoice.customer, items: [{ price: product.prices[0].id }] });
// A payment of no customer: no portal shows it.
const anonymousPayment = await succeededPayment(svc, key, 8_000);
const bobInvoice = await openInvoice(svc, key, { customer_email: 'bob@example.com', currency: 'xof', amount_due: 1_000 });
// A draft of Awa's: the merchant's work in progress, not the customer's to see.
const awaDraft = await createInvoice(svc, key, { customer_email: 'awa@example.com', currency: 'xof', amount_due: 2_000 });

t.test('sign-in: the code arrives by e-mail and opens a portal session', async (t) => {
  const asked = await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId: merchant.id, environment: 'sandbox', email: 'AWA@example.com' } });
  assertOk(t, asked);
  t.match(asked.body, { object: 'customer_portal.challenge', challengeId: /^[0-9a-f-]{36}$/ });
  const code = await codeSentTo('awa@example.com');
  const wrong = code === '000000' ? '000001' : '000000';
  assertError(t, await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: asked.body.challengeId, code: wrong } }), 'IKW-CPT-001', 'code');
  const ok = await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: asked.body.challengeId, code } });
  assertOk(t, ok);
  t.match(ok.body, { object: 'customer_portal.session', token: /^cps_[0-9A-Za-z]{32}$/, customer: { id: awaInvoice.customer, email: 'awa@example.com' } });
  assertError(t, await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: asked.body.challengeId, code } }), 'IKW-CPT-001', 'code');
  const me = await svc.request('GET', '/api/v1/customer-portal/me', as(ok.body.token));
  assertOk(t, me);
  t.match(me.body, { id: awaInvoice.customer, object: 'customer', email: 'awa@example.com' });
  assertOk(t, await svc.request('POST', '/api/v1/customer-portal/sign-out', as(ok.body.token)));
  assertError(t, await svc.request('GET', '/api/v1/customer-portal/me', as(ok.body.token)), 'IKW-CPT-002', 'Authorization');
});

t.test('sign-in refusals: unknown address, five wrong codes, expiry, no token', async (t) => {
  const sent = await codesWritten();
  const unknown = await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId: merchant.id, environment: 'sandbox', email: 'nobody@example.com' } });
  assertOk(t, unknown);
  t.match(unknown.body, { object: 'customer_portal.challenge' }, 'the same answer');
  t.equal(await codesWritten(), sent, 'and no e-mail');
  for (const code of ['000000', '999999']) {
    assertError(t, await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: unknown.body.challengeId, code } }), 'IKW-CPT-001', 'code');
  }
  // Awa's address at another merchant is not a customer there.
  await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId: other.merchant.id, environment: 'sandbox', email: 'awa@example.com' } });
  t.equal(await codesWritten(), sent, 'no e-mail for another merchant');

  const asked = await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId: merchant.id, environment: 'sandbox', email: 'awa@example.com' } });
  const code = await codeSentTo('awa@example.com');
  const wrong = code === '123456' ? '654321' : '123456';
  for (let i = 0; i < 5; i++) await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: asked.body.challengeId, code: wrong } });
  assertError(t, await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: asked.body.challengeId, code } }), 'IKW-CPT-001', 'code');

  const late = await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId: merchant.id, environment: 'sandbox', email: 'awa@example.com' } });
  const lateCode = await codeSentTo('awa@example.com');
  svc.clock.advance(10 * 60_000);
  assertError(t, await svc.request('POST', '/api/v1/customer-portal/sign-in/verify', { body: { challengeId: late.body.challengeId, code: lateCode } }), 'IKW-CPT-001', 'code');

  assertError(t, await svc.request('GET', '/api/v1/customer-portal/me'), 'IKW-CPT-002', 'Authorization');
  assertError(t, await svc.request('GET', '/api/v1/customer-portal/invoices', { key }), 'IKW-CPT-002', 'Authorization');
  assertError(t, await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId: merchant.id, email: 'not an address' } }), 'IKW-VAL-001', 'email');
});

t.test('a portal session lasts an hour', async (t) => {
  const token = await signIn(t, 'awa@example.com');
  svc.clock.advance(3_600_000 - 1);
  assertOk(t, await svc.request('GET', '/api/v1/customer-portal/me', as(token)));
  svc.clock.advance(1);
  assertError(t, await svc.request('GET', '/api/v1/customer-portal/me', as(token)), 'IKW-CPT-002', 'Authorization');
});

t.test('invoices: the customer sees and pays their own, not another customer\u2019s', async (t) => {
  const token = await signIn(t, 'awa@example.com');
  const list = await svc.request('GET', '/api/v1/customer-portal/invoices', as(token));
  assertOk(t, list);
  t.ok(
    list.body.data.some((i: { id: string }) => i.id === awaInvoice.id),
    'the open invoice',
  );
  t.ok(
    list.body.data.every((i: { customer: string }) => i.customer === awaInvoice.customer),
    'only hers (with her subscription\u2019s first invoice)',
  );
  t.notOk(
    list.body.data.some((i: { id: string }) => i.id === awaDraft.id),
    'not her draft',
  );
  assertError(t, await svc.request('POST', `/api/v1/customer-portal/invoices/${awaDraft.id}/pay`, { ...as(token), body: { payment_method: mobileMoney(snNumber('05')) } }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `/api/v1/customer-portal/invoices/${bobInvoice.id}/pay`, { ...as(token), body: { payment_method: mobileMoney(snNumber('05')) } }), 'IKW-RES-001', 'id');
  const paid = await svc.request('POST', `/api/v1/customer-portal/invoices/${awaInvoice.id}/pay`, { ...as(token), body: { payment_method: mobileMoney(snNumber('05')) } });
  assertOk(t, paid);
  t.match(paid.body, { object: 'payment_intent', amount: 3_000, status: 'processing' });
  await operatorAnswers(svc);
  await svc.system.drain();
  const after = await svc.request('GET', '/api/v1/customer-portal/invoices', as(token));
  t.equal(after.body.data.find((i: { id: string }) => i.id === awaInvoice.id).status, 'paid');
});

t.test('subscriptions: listed, canceled at period end, resumed', async (t) => {
  const token = await signIn(t, 'awa@example.com');
  const list = await svc.request('GET', '/api/v1/customer-portal/subscriptions', as(token));
  assertOk(t, list);
  t.same(
    list.body.data.map((s: { id: string }) => s.id),
    [awaSubscription.id],
  );
  const patch = (id: string, who: string, cancelAtPeriodEnd: unknown) => svc.request('PATCH', `/api/v1/customer-portal/subscriptions/${id}`, { ...as(who), body: { cancelAtPeriodEnd } });
  const canceled = await patch(awaSubscription.id, token, true);
  assertOk(t, canceled);
  t.match(canceled.body, { id: awaSubscription.id, cancel_at_period_end: true, status: 'active' });
  const resumed = await patch(awaSubscription.id, token, false);
  assertOk(t, resumed);
  t.match(resumed.body, { cancel_at_period_end: false, status: 'active' });
  assertOk(t, await patch(awaSubscription.id, token, false)); // resuming a subscription that renews changes nothing
  assertError(t, await patch(awaSubscription.id, token, 'yes'), 'IKW-VAL-001', 'cancelAtPeriodEnd');
  const bob = await signIn(t, 'bob@example.com');
  assertError(t, await patch(awaSubscription.id, bob, true), 'IKW-RES-001', 'id');
  await svc.request('POST', `/api/v1/merchant/subscriptions/${awaSubscription.id}/cancel`, { key, body: {} });
  assertError(t, await patch(awaSubscription.id, token, false), 'IKW-BIL-001', 'id');
});

t.test('contact details: the customer changes name and phone, not the e-mail address', async (t) => {
  const token = await signIn(t, 'awa@example.com');
  const changed = await svc.request('PATCH', '/api/v1/customer-portal/me', { ...as(token), body: { name: 'Awa Diop', phone: '+221 77 123 45 67' } });
  assertOk(t, changed);
  t.match(changed.body, { name: 'Awa Diop', phone: '+221771234567', email: 'awa@example.com' });
  t.match((await svc.request('GET', `/api/v1/merchant/customers/${awaInvoice.customer}`, { key })).body, { name: 'Awa Diop', phone: '+221771234567' }, 'the merchant sees it too');
  assertError(t, await svc.request('PATCH', '/api/v1/customer-portal/me', { ...as(token), body: { phone: '77 123 45 67' } }), 'IKW-VAL-007', 'phone');
  assertError(t, await svc.request('PATCH', '/api/v1/customer-portal/me', { ...as(token), body: { email: 'x@example.com' } }), 'IKW-VAL-002', 'email');
  assertError(t, await svc.request('PATCH', '/api/v1/customer-portal/me', { ...as(token), body: {} }), 'IKW-VAL-001');
  const removed = await svc.request('PATCH', '/api/v1/customer-portal/me', { ...as(token), body: { phone: null } });
  t.equal(removed.body.phone, null);
});

t.test('payments with refunds and receipts', async (t) => {
  const intent = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: 4_000, currency: 'xof', transaction_country: 'SN', customer_email: 'awa@example.com' } });
  await svc.request('POST', `/api/v1/payment-intents/${intent.body.id}/confirm`, { key, body: { payment_method: mobileMoney(snNumber('05')) } });
  await operatorAnswers(svc);
  const refund = await svc.request('POST', `/api/v1/merchant/payments/${intent.body.id}/refund`, { key, body: { amount: 1_000, reason: 'requested_by_customer' } });
  assertOk(t, refund);
  await operatorAnswers(svc);
  const token = await signIn(t, 'awa@example.com');
  const payments = await svc.request('GET', '/api/v1/customer-portal/payments', as(token));
  assertOk(t, payments);
  const mine = payments.body.data.find((p: { id: string }) => p.id === intent.body.id);
  t.match(mine, { amount: 4_000, status: 'succeeded', refunds: [{ amount: 1_000, payment_intent: intent.body.id }] });
  t.notOk(
    payments.body.data.some((p: { id: string }) => p.id === anonymousPayment.id),
    'only the customer\u2019s own payments',
  );
  t.match(mine.receipt, { object: 'customer_portal.receipt', paymentIntentId: intent.body.id, amountPaid: 4_000, amountRefunded: 1_000, currency: 'xof', paymentMethod: { type: 'mobile_money' } });
  const bob = await signIn(t, 'bob@example.com');
  t.notOk(
    (await svc.request('GET', '/api/v1/customer-portal/payments', as(bob))).body.data.some((p: { id: string }) => p.id === intent.body.id),
    'not in another customer\u2019s list',
  );
});
