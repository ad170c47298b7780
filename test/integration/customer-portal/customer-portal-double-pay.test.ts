/**
 * The customer portal's invoice payment is a public page with no Idempotency-Key: a double submit
 * (a double click, sequential or concurrent) must not charge the customer twice (docs/billing.md,
 * "Paying from the customer portal"). One payment at a time per invoice, as Stripe's hosted invoice
 * page: a submit with the same payment method answers the payment in flight; another method is
 * refused while it is; a failed payment lets the customer try again. The sandbox operator is
 * wrapped to count every collection it is asked for.
 */
import t, { type Test } from '#tap';
import { portalSignIn } from '../../support/customer-portal.js';
import { openInvoice } from '../../support/billing.js';
import { assertError, assertOk, mobileMoney, operatorAnswers, snNumber, startRecordingCollects } from '../../support/payments.js';

const { svc, collects } = await startRecordingCollects(t);
const { merchant, key } = await svc.sandboxMerchant('Double click stall');

const signIn = (t: Test, email: string) => portalSignIn(t, svc, merchant.id, email);

const pay = (token: string, invoiceId: string, lastTwo: string) =>
  svc.request('POST', `/api/v1/customer-portal/invoices/${invoiceId}/pay`, { headers: { authorization: `Bearer ${token}` }, body: { payment_method: mobileMoney(snNumber(lastTwo)) } });
const collectsOf = (intentIds: Set<string>) => collects.filter((c) => intentIds.has(c.paymentIntentId)).length;
const invoiceOf = async (id: string) => (await svc.request('GET', `/api/v1/billing/invoices/${id}`, { key })).body;

t.test('a sequential double submit answers the payment in flight: one intent, one charge', async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'seq@example.com', currency: 'xof', amount_due: 3_000 });
  const token = await signIn(t, 'seq@example.com');
  const first = await pay(token, invoice.id, '05');
  assertOk(t, first);
  t.equal(first.body.status, 'processing');
  const second = await pay(token, invoice.id, '05');
  assertOk(t, second);
  t.equal(second.body.id, first.body.id, 'the same payment intent');
  // Another method while one is in flight is refused, as Stripe's hosted page offers no second payment.
  assertError(t, await pay(token, invoice.id, '06'), 'IKW-BIL-012', 'id');
  t.equal(collectsOf(new Set([first.body.id])), 1, 'one charge at the operator');
  await operatorAnswers(svc);
  await svc.system.drain();
  const paid = await invoiceOf(invoice.id);
  t.match(paid, { status: 'paid' });
  // Paid: the same submit again answers the payment that paid it, and charges nothing.
  const after = await pay(token, invoice.id, '05');
  assertOk(t, after);
  t.match(after.body, { id: first.body.id, status: 'succeeded' });
  t.equal(collectsOf(new Set([first.body.id])), 1);
});

t.test('concurrent submits make one intent and one charge', async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'conc@example.com', currency: 'xof', amount_due: 4_000 });
  const token = await signIn(t, 'conc@example.com');
  const before = collects.length;
  const answers = await Promise.all(Array.from({ length: 5 }, () => pay(token, invoice.id, '07')));
  for (const a of answers) assertOk(t, a);
  const ids = new Set(answers.map((a) => a.body.id as string));
  t.equal(ids.size, 1, 'every submit answered with one payment intent');
  t.equal(collects.length - before, 1, 'one charge at the operator');
  await operatorAnswers(svc);
  await svc.system.drain();
  t.match(await invoiceOf(invoice.id), { status: 'paid' });
});
