/**
 * An invoice from the merchant to the customer and back, in Chromium (issue 65, item 1): the
 * merchant makes and sends it with the dashboard's "New invoice" form; the customer opens the
 * e-mailed link (a real SMTP server on loopback), pays it on the sandbox through the checkout
 * page payment links use, and gets a receipt by e-mail; the merchant sees it paid. In English at
 * 1280 px and in French at 390 px, axe-core clean. And a French payer whose payment fails reads
 * the reason in French (item 2).
 */
import type { Page } from 'playwright-core';
import t, { type Test } from '#tap';
import { closeAtEnd, openPage } from '../../support/browser.js';
import { accessibilityProblems, navigate, overflowAt, screenshot, startDashboard } from '../../support/dashboard.js';
import { operatorAnswers, snNumber } from '../../support/payments.js';
import { mailsTo as rawMailsTo, startSmtp, type Mail } from '../../support/webhooks.js';

const smtp = await startSmtp(t);
// Served where PUBLIC_URL says: the e-mailed link and the checkout's way back to the invoice name it.
const { svc, browser, signedIn } = await startDashboard(t, { env: { SMTP_URL: smtp.url }, publicOrigin: true });

/** The mails to `to`, their quoted-printable text decoded (UTF-8). */
const mailsTo = (mails: readonly Mail[], to: string) =>
  rawMailsTo(mails, to).map((raw) =>
    Buffer.from(
      raw.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8'),
  );

/** A page for the merchant's customer, in their language, at their width, closed when `t` ends. */
async function payerPage(t: Test, lang: 'en' | 'fr', width: number): Promise<Page> {
  const { page } = await openPage(browser);
  closeAtEnd(t, page);
  await page.setExtraHTTPHeaders({ 'accept-language': lang === 'fr' ? 'fr-FR,fr' : 'en-US,en' });
  await page.setViewportSize({ width, height: 800 });
  return page;
}

const cases = [
  { lang: 'en', width: 1280, shop: 'Atelier Diop', invoice: 'Invoice', payerLanguage: 'English', pay: 'Pay', paidOn: 'Paid on', receipt: /Thank you: Atelier Diop received F\sCFA\s25,000 for invoice/ },
  { lang: 'fr', width: 390, shop: 'Couture Ndiaye', invoice: 'Facture', payerLanguage: 'Français', pay: 'Payer', paidOn: 'Payée le', receipt: /Merci : Couture Ndiaye a reçu 25\s000\sF\sCFA pour la facture/u },
] as const;

for (const c of cases) {
  t.test(`${c.lang} at ${c.width} px: created and sent in the dashboard, paid from the e-mailed link, a receipt, shown paid`, async (t) => {
    const { merchant, email, page } = await signedIn(t, c.shop);
    const member = (await svc.system.knex('read.users').where({ email }).first<{ id: string } | undefined>())?.id;
    // A sandbox merchant's mail reaches its own team only: the customer is the owner's verified address.
    if (member) await svc.system.accounts.verifyContact(member, 'email', email, { actor: 'test' });
    t.ok(member, 'the owner is a user');

    await navigate(page, 'Invoices');
    await page.locator('summary').filter({ hasText: 'New invoice' }).click();
    const form = page.getByRole('form', { name: 'New invoice' });
    await form.getByLabel('Customer').selectOption({ label: 'A new customer…' });
    await form.getByLabel('E-mail address').fill(email);
    await form.getByLabel('Name (optional)').fill('Awa Diallo');
    // Several free-text lines: two kept, a third added and removed (issue 65, item 1).
    await form.getByLabel(/^Line 1/).selectOption({ label: 'Free text' });
    await form.getByLabel('Description of line 1').fill('Boubou brodé');
    await form.getByLabel('Unit amount of line 1').fill('20000');
    for (const n of [2, 3]) {
      await form.getByRole('button', { name: 'Add a line' }).click();
      await form.getByLabel(new RegExp(`^Line ${n}`)).selectOption({ label: 'Free text' });
    }
    await form.getByLabel('Description of line 2').fill('Broderie du col');
    await form.getByLabel('Unit amount of line 2').fill('2500');
    await form.getByLabel('Quantity', { exact: true }).nth(1).fill('2');
    await form.getByLabel('Description of line 3').fill('Line to remove');
    await form.getByRole('button', { name: 'Remove line 3' }).click();
    t.equal(await form.getByLabel('Description of line 3').count(), 0, 'the third line is gone');
    await form.getByLabel('E-mail and page in').selectOption({ label: c.payerLanguage });
    const before = smtp.mails.length;
    await form.getByRole('button', { name: 'Create and send' }).click();
    await page.locator('dl.facts').filter({ hasText: 'StatusOpen' }).waitFor();
    const invoiceId = new URL(page.url()).pathname.split('/').pop()!;
    t.match(invoiceId, /^in_/, "the new invoice's page");
    const made = (await svc.request('GET', `/api/v1/merchant/invoices/${invoiceId}`, { key: merchant.api_keys.sandbox })).body;
    t.match(
      made.lines,
      [
        { description: 'Boubou brodé', quantity: 1, unit_amount: 20_000, amount: 20_000 },
        { description: 'Broderie du col', quantity: 2, unit_amount: 2_500, amount: 5_000 },
      ],
      'the two free-text lines',
    );
    t.equal(made.lines.length, 2);
    t.same(await accessibilityProblems(page), [], 'the invoice page: axe clean');

    const sent = mailsTo(smtp.mails.slice(before), email);
    t.equal(sent.length, 1, 'the customer got the invoice by e-mail');
    t.match(sent[0], new RegExp(`^From: "?${c.shop} via Sika"?`, 'm'), 'from "<merchant> via Sika"');
    const link = /https?:\/\/\S+\/hosted\/invoices\/in_\w+\?lang=(en|fr)/.exec(sent[0]!)?.[0];
    t.ok(link, 'with the link');

    const payer = await payerPage(t, c.lang, c.width);
    t.equal(new URL(link!).origin, svc.publicUrl, 'the link names PUBLIC_URL');
    await payer.goto(link!);
    const number = `INV-${invoiceId.slice(-8).toUpperCase()}`;
    await payer.getByRole('heading', { name: `${c.invoice} ${number}` }).waitFor();
    t.equal(await payer.title(), `${c.invoice} ${number} · ${c.shop}`, 'titled with the number and the merchant');
    t.equal(await payer.locator('#merchant-name').textContent(), c.shop);
    t.match(await payer.locator('#amount').textContent(), c.lang === 'fr' ? /^25\s000\sF\sCFA$/ : /^F\sCFA\s25,000$/, 'the amount formatted');
    const qty = payer.locator('th', { hasText: c.lang === 'fr' ? 'Qté' : 'Qty' });
    const item = payer.locator('th', { hasText: c.lang === 'fr' ? 'Article' : 'Item' });
    t.equal((await qty.boundingBox())?.height, (await item.boundingBox())?.height, '"Qty" on one line, as high as its row');
    t.equal(await qty.evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).whiteSpace), 'nowrap');
    t.equal(await payer.locator('#pdf').getAttribute('href'), `/hosted/invoices/${invoiceId}/pdf`);
    t.same(await accessibilityProblems(payer), [], 'the hosted invoice: axe clean');
    t.same(await overflowAt(payer, c.width), [], 'no horizontal scroll');
    await screenshot(payer, `invoice-hosted-${c.lang}`);

    await payer.getByLabel(c.lang === 'fr' ? 'Pays de votre compte mobile money' : 'Country of your mobile money account').selectOption('SN');
    await payer.getByRole('button', { name: new RegExp(`^${c.pay} `) }).click();
    await payer.locator('#operator').waitFor();
    await payer.locator('#operator').selectOption('orange_money');
    await payer.locator('#phone').fill(snNumber('67'));
    t.same(await accessibilityProblems(payer), [], 'the checkout page: axe clean');
    const receiptsBefore = smtp.mails.length;
    await payer.locator('#pay').click();
    await payer.locator('#status').waitFor();
    await operatorAnswers(svc);
    await svc.system.drain();
    // The browser that paid is sent back to the invoice, which says it is paid.
    await payer.locator('#paid').filter({ hasText: c.paidOn }).waitFor({ timeout: 20_000 });
    t.equal(new URL(payer.url()).pathname, `/hosted/invoices/${invoiceId}`);
    t.equal(await payer.getByRole('button', { name: new RegExp(`^${c.pay} `) }).count(), 0, 'no Pay button once paid');

    const receipts = mailsTo(smtp.mails.slice(receiptsBefore), email);
    t.equal(receipts.length, 1, 'one receipt');
    t.match(receipts[0], c.receipt, "in the customer's language");
    await page.reload();
    await page.locator('dl.facts').filter({ hasText: 'StatusPaid' }).waitFor();
    t.match((await svc.request('GET', `/api/v1/merchant/invoices/${invoiceId}`, { key: merchant.api_keys.sandbox })).body, { status: 'paid', amount_paid: 25_000 });
  });
}

t.test('a French payer whose payment fails reads no English', async (t) => {
  const { merchant } = await signedIn(t, 'Librairie Fall');
  const key = merchant.api_keys.sandbox;
  const invoice = (await svc.request('POST', '/api/v1/merchant/invoices', { key, body: { customer_email: 'lecteur@fall.example', currency: 'xof', amount_due: 5_000, description: 'Livres' } })).body;
  await svc.request('PATCH', `/api/v1/merchant/invoices/${invoice.id}/status`, { key, body: { status: 'open' } });
  const payer = await payerPage(t, 'fr', 390);
  await payer.goto(`${svc.baseUrl}/hosted/invoices/${invoice.id}?lang=fr`);
  await payer.getByLabel('Pays de votre compte mobile money').selectOption('SN');
  await payer.getByRole('button', { name: /^Payer / }).click();
  await payer.locator('#operator').selectOption('orange_money');
  await payer.locator('#phone').fill(snNumber('01'));
  await payer.locator('#pay').click();
  await payer.locator('#status').waitFor();
  await operatorAnswers(svc);
  await payer.locator('#error').waitFor({ timeout: 20_000 });
  const error = (await payer.locator('#error').textContent()) ?? '';
  t.match(error, /Le paiement n’a pas abouti \(le solde du compte est insuffisant\)/);
  t.notMatch(await payer.locator('main').textContent(), /wallet|balance|payment|too low|the payer/i, 'no English on the page');
  t.same(await accessibilityProblems(payer), [], 'axe clean');
  await screenshot(payer, 'checkout-failed-fr');
});
