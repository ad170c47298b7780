/**
 * An invoice is paid once whichever ways its customer pays it at the same instant (docs/billing.md,
 * "One payment of an invoice at a time"): the customer portal, the hosted invoice page's checkout
 * (one session per country), the billing API's confirm. Each pair is raced as two real HTTP
 * requests, in the worst order: both are held just before their intent is confirmed until both
 * got there (or one was answered), so both have passed every check before either payment is with
 * the operator. One payment reaches the operator; the other request is refused with IKW-BIL-012.
 * A failed payment, and an attempt left unconfirmed by a crash, give the invoice back.
 */
import t, { type Test } from '#tap';
import { INVOICE_METADATA_KEY } from '#packages/families/billing/invoice/commands.js';
import { ATTEMPT_ABANDONED_AFTER_MS } from '#packages/families/billing/invoice/payments.js';
import { portalSignIn } from '../../support/customer-portal.js';
import { openInvoice, walletBalance } from '../../support/billing.js';
import { assertError, assertOk, mobileMoney, operatorAnswers, snNumber, startRecordingCollects } from '../../support/payments.js';
import type { TestResponse } from '../../support/system.js';

const { svc, collects } = await startRecordingCollects(t);
const { merchant, key } = await svc.sandboxMerchant('Two doors shop');
const who = { merchantId: merchant.id, environment: 'sandbox' as const };
const ciNumber = (lastTwo: string) => `+22507123456${lastTwo}`;

/**
 * Runs `requests` at once, each intent of `invoiceId` held before its confirm until every request
 * reached its confirm or one of them was answered: the order in which every check comes first.
 */
async function race(invoiceId: string, requests: (() => Promise<TestResponse>)[]): Promise<TestResponse[]> {
  const intents = svc.system.paymentIntents;
  const confirm = intents.confirm;
  let arrived = 0;
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  intents.confirm = async function (this: typeof intents, ...args: Parameters<typeof confirm>) {
    const { state } = await this.load(args[1]);
    if (state.metadata[INVOICE_METADATA_KEY] === invoiceId && ++arrived === requests.length) release();
    if (state.metadata[INVOICE_METADATA_KEY] === invoiceId) await open;
    return confirm.apply(this, args);
  };
  try {
    return await Promise.all(requests.map((r) => r().finally(release)));
  } finally {
    intents.confirm = confirm;
  }
}

const signIn = (t: Test, email: string) => portalSignIn(t, svc, merchant.id, email);

const portal = (token: string, invoiceId: string, msisdn: string) => () =>
  svc.request('POST', `/api/v1/customer-portal/invoices/${invoiceId}/pay`, { headers: { authorization: `Bearer ${token}` }, body: { payment_method: mobileMoney(msisdn) } });

/** The hosted invoice page's Pay, in `country`: the checkout session it opens. */
async function session(invoiceId: string, country = 'SN'): Promise<string> {
  const opened = await fetch(`${svc.baseUrl}/hosted/invoices/${invoiceId}/pay`, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: `Country=${country}`,
    redirect: 'manual',
  });
  if (opened.status !== 303) throw new Error(`hosted pay answered ${opened.status}`);
  return opened.headers.get('location')!;
}
const hosted =
  (location: string, msisdn: string, operator = 'orange_money') =>
  () =>
    svc.request('POST', `${location}/pay`, { body: { Operator: operator, PhoneNumber: msisdn } });
const api = (invoiceId: string, msisdn: string) => () =>
  svc.request('POST', `/api/v1/billing/invoices/${invoiceId}/confirm`, { key, body: { paymentMethod: { type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn } } } });

/** The intents of the invoice the operator was asked to collect. */
async function collectedFor(invoiceId: string): Promise<string[]> {
  const ids = new Set<string>();
  for (const c of collects) {
    const { state } = await svc.system.paymentIntents.load(c.paymentIntentId);
    if (state.metadata[INVOICE_METADATA_KEY] === invoiceId) ids.add(c.paymentIntentId);
  }
  return [...ids];
}

/** One request went through, the other was refused as the invoice's payment in flight; one charge; paid once. */
async function paidOnce(t: Test, invoiceId: string, customer: string, answers: TestResponse[], amount: number) {
  const through = answers.filter((a) => a.status < 300);
  const refused = answers.filter((a) => a.status >= 300);
  t.equal(through.length, 1, 'one request pays');
  t.equal(refused.length, 1, 'the other is refused');
  for (const r of refused) t.match(r.body, { code: 'IKW-BIL-012' }, 'as the invoice already having a payment in flight');
  t.equal((await collectedFor(invoiceId)).length, 1, 'one payment reaches the operator');
  await operatorAnswers(svc);
  await svc.system.drain();
  const invoice = (await svc.request('GET', `/api/v1/merchant/invoices/${invoiceId}`, { key })).body;
  t.match(invoice, { status: 'paid', amount_paid: amount, amount_remaining: 0 });
  t.equal(await walletBalance(svc, key, customer), 0, 'nothing was taken twice (no overpayment in the wallet)');
}

t.test('the portal and the hosted invoice page at the same instant: one payment', async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'both@example.com', currency: 'xof', amount_due: 6_000 });
  const token = await signIn(t, 'both@example.com');
  const location = await session(invoice.id);
  const answers = await race(invoice.id, [portal(token, invoice.id, snNumber('11')), hosted(location, snNumber('12'))]);
  await paidOnce(t, invoice.id, invoice.customer, answers, 6_000);
});

t.test('the hosted page in two countries (two checkout sessions) at the same instant: one payment', async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'tabs@example.com', currency: 'xof', amount_due: 7_000 });
  const [sn, ci] = [await session(invoice.id, 'SN'), await session(invoice.id, 'CI')];
  t.not(sn, ci, 'two sessions');
  const answers = await race(invoice.id, [hosted(sn, snNumber('21')), hosted(ci, ciNumber('22'))]);
  await paidOnce(t, invoice.id, invoice.customer, answers, 7_000);
});

t.test("the billing API's confirm and the hosted page at the same instant: one payment", async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'api@example.com', currency: 'xof', amount_due: 8_000 });
  const location = await session(invoice.id);
  const answers = await race(invoice.id, [api(invoice.id, snNumber('31')), hosted(location, snNumber('32'))]);
  await paidOnce(t, invoice.id, invoice.customer, answers, 8_000);
});

t.test('a failed payment gives the invoice back: the other path then pays it', async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'again@example.com', currency: 'xof', amount_due: 9_000 });
  const token = await signIn(t, 'again@example.com');
  const location = await session(invoice.id);
  // Ends in 01: the operator takes it, then answers insufficient funds.
  const first = await portal(token, invoice.id, snNumber('01'))();
  assertOk(t, first);
  assertError(t, await hosted(location, snNumber('41'))(), 'IKW-BIL-012', 'invoiceId');
  await operatorAnswers(svc);
  await svc.system.drain();
  t.match((await svc.system.paymentIntents.load(first.body.id)).state, { status: 'failed' });
  t.equal((await hosted(location, snNumber('41'))()).status, 200, 'the invoice takes a new attempt');
  await operatorAnswers(svc);
  await svc.system.drain();
  t.match((await svc.request('GET', `/api/v1/merchant/invoices/${invoice.id}`, { key })).body, { status: 'paid', amount_paid: 9_000 });
});

t.test('an attempt a crash left unconfirmed holds the invoice for a while, then gives way and can never be confirmed', async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'crash@example.com', currency: 'xof', amount_due: 5_000 });
  const token = await signIn(t, 'crash@example.com');
  // What a process that died between the invoice's decision and the confirm leaves: an intent attached and started, never confirmed.
  const orphan = await svc.request('POST', `/api/v1/billing/invoices/${invoice.id}/pay`, { key, body: { transactionCountry: 'SN' } });
  assertOk(t, orphan);
  await svc.system.billing.invoicePayments.beforeCheckoutConfirm(who, invoice.id, orphan.body.id);
  assertError(t, await portal(token, invoice.id, snNumber('51'))(), 'IKW-BIL-012', 'id');
  svc.clock.advance(ATTEMPT_ABANDONED_AFTER_MS);
  const paid = await portal(token, invoice.id, snNumber('51'))();
  assertOk(t, paid);
  t.not(paid.body.id, orphan.body.id, 'a new attempt');
  t.match((await svc.system.paymentIntents.load(orphan.body.id)).state, { status: 'canceled' }, 'the abandoned one is canceled: it can never be confirmed now');
  await operatorAnswers(svc);
  await svc.system.drain();
  t.match((await svc.request('GET', `/api/v1/merchant/invoices/${invoice.id}`, { key })).body, { status: 'paid', amount_paid: 5_000 });
  t.equal(await walletBalance(svc, key, invoice.customer), 0);
});
