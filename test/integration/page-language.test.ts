/**
 * A French payer's pages speak French only (packages/families/checkout/http/page-words.ts): each payer page is
 * rendered in French for a failure (a payment the operator refused, a form refused, a campaign's
 * contribution failed, an invoice that takes no more payments, a wrong portal code, a link no
 * longer available, the status page of a failed payment, the portal listing a failed payment), and
 * its text may hold none of the English catalogue's texts (those that differ from the French), none
 * of the provider's English failure messages, and none of the API's raw status names.
 */
import t, { type Test } from '#tap';
import { CATALOGUE } from '#packages/families/checkout/http/page-words.js';
import { failureOf } from '#packages/connectors/pawapay/failures.js';
import { openInvoice, setInvoiceStatus } from '../support/billing.js';
import { createLink, createSession } from '../support/checkout.js';
import { portalCodeSentTo } from '../support/customer-portal.js';
import { activeCampaign, settle } from '../support/funding.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../support/payments.js';
import { startPaymentsService } from '../support/system.js';

const svc = await startPaymentsService(t);
const { key, merchant } = await svc.sandboxMerchant('Boutique Awa');

const FR = { accept: 'text/html', 'accept-language': 'fr-SN,fr;q=0.9,en;q=0.5' };
const FORM = { ...FR, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

async function page(method: string, path: string, options: { body?: Record<string, string>; cookie?: string } = {}) {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: { ...(options.body ? FORM : FR), ...(options.cookie ? { cookie: options.cookie } : {}) },
    ...(options.body ? { body: new URLSearchParams(options.body).toString() } : {}),
  });
  return { status: res.status, location: res.headers.get('location'), cookie: res.headers.get('set-cookie')?.split(';')[0] ?? null, html: await res.text() };
}

/** What a reader sees of a page: its text without markup, scripts or styles, entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

function leaves(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.values(value).flatMap(leaves) : typeof value === 'string' ? [value] : [];
}

/** The English a French page must not show: the catalogue's English texts that differ in French, the providers' messages, raw statuses. */
const frenchTexts = new Set(leaves(CATALOGUE.fr));
const ENGLISH = [
  ...new Set([
    ...leaves(CATALOGUE.en)
      .filter((s) => !frenchTexts.has(s))
      // A text with a placeholder: its longest fixed part.
      .map((s) =>
        s
          .split(/\{\w+\}/)
          .sort((a, b) => b.length - a.length)[0]!
          .trim(),
      ),
    ...['PAYER_NOT_FOUND', 'INSUFFICIENT_BALANCE', 'PAYMENT_NOT_APPROVED', 'PROVIDER_TEMPORARILY_UNAVAILABLE', 'INVALID_PHONE_NUMBER'].map((c) => failureOf({ failureCode: c }).failureMessage),
    'succeeded',
    'requires_payment_method',
    'processing',
    'failed',
    'open',
    'active',
    'trialing',
    'test payment',
  ]),
].filter((s) => s.length > 0);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `s` as a whole word: not inside a longer word of any script ("Pay" is not in "Payé"). */
const word = (s: string) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(s)}(?![\\p{L}\\p{N}])`, 'u');

function assertFrench(t: Test, html: string, what: string): void {
  t.match(html, /<html lang="fr">/, `${what}: the page says it is French`);
  const text = visibleText(html);
  const found = ENGLISH.filter((s) => word(s).test(text));
  t.same(found, [], `${what}: no English text`);
}

t.test('the checkout page of a payment the operator refused', async (t) => {
  const session = await createSession(svc, key);
  const sent = await page('POST', `/checkout/session/${session.id}/pay`, { body: { PaymentMethod: 'mobile_money', Operator: 'orange_money', PhoneNumber: snNumber('01') } });
  t.equal(sent.status, 303);
  await operatorAnswers(svc);
  const shown = await page('GET', `/checkout/session/${session.id}`);
  t.match(visibleText(shown.html), /Le paiement n’a pas abouti \(le solde du compte est insuffisant\)/);
  assertFrench(t, shown.html, 'failed payment');
});

t.test('the checkout form refused: a number that is not one, no operator', async (t) => {
  const session = await createSession(svc, key);
  const badNumber = await page('POST', `/checkout/session/${session.id}/pay`, { body: { PaymentMethod: 'mobile_money', Operator: 'orange_money', PhoneNumber: '12' } });
  t.equal(badNumber.status, 400);
  t.match(visibleText(badNumber.html), /Ce numéro de mobile money n’est pas valide/);
  assertFrench(t, badNumber.html, 'bad number');
  const noOperator = await page('POST', `/checkout/session/${session.id}/pay`, { body: { PaymentMethod: 'mobile_money', PhoneNumber: snNumber('67') } });
  t.match(visibleText(noOperator.html), /Choisissez un opérateur/);
  assertFrench(t, noOperator.html, 'no operator');
});

t.test('a payment link no longer available', async (t) => {
  const link = await createLink(svc, key, { description: 'Panier de mangues' });
  t.equal((await svc.request('POST', `/api/v1/payment_links/${link.id}/deactivate`, { key })).status, 200);
  const shown = await page('GET', `/pay/${link.slug}`);
  t.equal(shown.status, 410);
  assertFrench(t, shown.html, 'unavailable link');
});

t.test('the status page of a failed payment, with why', async (t) => {
  const intent = await createIntent(svc, key);
  const confirmed = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('01')) });
  await operatorAnswers(svc);
  const shown = await page('GET', `/operations/status/${confirmed.body.latest_operation}`);
  t.equal(shown.status, 200);
  t.match(visibleText(shown.html), /Le paiement n’a pas abouti\./);
  t.match(visibleText(shown.html), /Motif : le solde du compte est insuffisant\./, 'why, in French');
  t.match(visibleText(shown.html), /10\s000\sF\s?CFA/, 'the amount formatted, not 10000 XOF');
  assertFrench(t, shown.html, 'status page');
});

t.test('a campaign: the contribution failed, and the form refused', async (t) => {
  const campaign = await activeCampaign(svc, key, { title: 'Toit de l’école', description: 'Un nouveau toit pour l’école de Ndiaganiao' });
  const fields = { Amount: '5000', Name: 'Awa', Operator: 'orange_money' };
  const sent = await page('POST', `/funding/${campaign.slug}/contribute`, { body: { ...fields, PhoneNumber: snNumber('01') } });
  t.equal(sent.status, 303);
  await settle(svc, 60_000);
  const failed = await page('GET', sent.location!);
  t.match(visibleText(failed.html), /Le paiement n’a pas abouti/);
  assertFrench(t, failed.html, 'failed contribution');
  const refused = await page('POST', `/funding/${campaign.slug}/contribute`, { body: { ...fields, PhoneNumber: '12' } });
  t.equal(refused.status, 400);
  t.match(visibleText(refused.html), /Ce numéro de mobile money n’est pas valide/);
  assertFrench(t, refused.html, 'refused contribution');
  const noAmount = await page('POST', `/funding/${campaign.slug}/contribute`, { body: { ...fields, Amount: 'abc', PhoneNumber: snNumber('67') } });
  t.match(visibleText(noAmount.html), /Saisissez un montant valide/);
  assertFrench(t, noAmount.html, 'no amount');
});

t.test('an invoice that takes no more payments', async (t) => {
  const invoice = await openInvoice(svc, key, { customer_email: 'client@boutique.example', currency: 'xof', amount_due: 2_500, description: 'Tissu wax' });
  await setInvoiceStatus(svc, key, invoice.id, 'paid');
  const shown = await page('POST', `/hosted/invoices/${invoice.id}/pay`, { body: {} });
  t.equal(shown.status, 409);
  assertFrench(t, shown.html, 'invoice paid');
});

t.test('the customer portal: a wrong code, then the account listing an open invoice and a failed payment', async (t) => {
  const email = 'fatou@boutique.example';
  const invoice = await openInvoice(svc, key, { customer_email: email, currency: 'xof', amount_due: 3_000, description: 'Tissu wax' });
  const intent = await createIntent(svc, key, { customer: invoice.customer });
  await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('01')) });
  await operatorAnswers(svc);
  const base = `/portal/sandbox/${merchant.id}`;
  const asked = await page('POST', `${base}/sign-in`, { body: { Email: email } });
  const challengeId = /name="ChallengeId" value="([0-9a-f-]{36})"/.exec(asked.html)![1]!;
  const wrong = await page('POST', `${base}/verify`, { body: { ChallengeId: challengeId, Code: '000000' } });
  assertFrench(t, wrong.html, 'wrong code');
  const verified = await page('POST', `${base}/verify`, { body: { ChallengeId: challengeId, Code: await portalCodeSentTo(svc, email) } });
  t.equal(verified.status, 303);
  const account = await page('GET', base, { cookie: verified.cookie! });
  t.match(visibleText(account.html), /À payer/, 'the invoice’s status in words');
  t.match(visibleText(account.html), /Échoué/, 'the payment’s status in words');
  assertFrench(t, account.html, 'portal account');
});
