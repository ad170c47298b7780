/**
 * The customer portal's hosted pages in a real browser (chromium, phone-sized): sign in with the
 * code read from a real SMTP server, see the account (invoices, subscriptions, payments), cancel a
 * subscription at period end and resume it, sign out; a wrong code is shown as such; the merchant
 * named, with its logo, on the sign-in and account pages.
 */
import t from '#tap';
import { createProduct, createSubscription, openInvoice } from '../../support/billing.js';
import { closeAtEnd, openPage, startBrowser } from '../../support/browser.js';
import { assertMerchantShown, uploadLogo } from '../../support/page-merchant.js';
import { startPaymentsService } from '../../support/system.js';
import { startSmtp } from '../../support/webhooks.js';
import { withHeader } from '../../support/dashboard.js';

const smtp = await startSmtp(t);
const svc = await startPaymentsService(t, { env: { SMTP_URL: smtp.url } });
const { merchant, key } = await svc.sandboxMerchant('Mango stall');
await uploadLogo(svc, key);
// A sandbox merchant's mail reaches only its team's verified addresses (the outbox holds the rest):
// the customer here is a member who tries the portal as a customer would.
const member = await svc.member(merchant, 'awa@example.com', 'correct horse battery');
await svc.system.accounts.verifyContact(member, 'email', 'awa@example.com', { actor: 'test' });
const browser = await startBrowser(t);
const portalUrl = `${svc.baseUrl}/portal/sandbox/${merchant.id}`;

const invoice = await openInvoice(svc, key, { customer_email: 'awa@example.com', currency: 'xof', amount_due: 3_000 });
const product = await createProduct(svc, key);
await createSubscription(svc, key, { customer: invoice.customer, items: [{ price: product.prices[0].id }] });

function lastCode(): string {
  const code = /Your code: (\d{6})/.exec(smtp.mails.at(-1)?.raw ?? '')?.[1];
  if (!code) throw new Error('no code e-mailed');
  return code;
}

t.test('sign in with the e-mailed code, manage a subscription, sign out', async (t) => {
  const { page, problems } = await openPage(browser);
  closeAtEnd(t, page);
  await page.goto(portalUrl);
  t.equal(await page.locator('h1').textContent(), 'Your account');
  await assertMerchantShown(t, page, 'Mango stall', { logo: true });
  await page.getByLabel('E-mail address').fill('awa@example.com');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Code from the e-mail').waitFor();
  t.same(smtp.mails.at(-1)?.to, ['awa@example.com'], 'the code went to the customer');

  await page.getByLabel('Code from the e-mail').fill(lastCode() === '000000' ? '000001' : '000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#error').waitFor();
  t.match(await page.locator('#error').textContent(), /wrong or has expired/);

  await page.getByLabel('Code from the e-mail').fill(lastCode());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#contact').waitFor();
  t.match(await page.locator('#contact').textContent(), /awa@example\.com/);
  await assertMerchantShown(t, page, 'Mango stall', { logo: true });
  t.ok((await page.locator('#invoices a', { hasText: 'Pay' }).count()) >= 1, 'the open invoice links to its payment page');
  const cookies = await browser.cookies(portalUrl);
  t.match(
    cookies.find((c) => c.name === 'sika_portal'),
    { httpOnly: true, sameSite: 'Strict' },
    'the token is an HttpOnly cookie',
  );

  await page.getByRole('button', { name: 'Cancel at the end of the period' }).click();
  await page.getByRole('button', { name: 'Keep my subscription' }).waitFor();
  t.match(await page.locator('#subscriptions').textContent(), /ends on/);
  await page.getByRole('button', { name: 'Keep my subscription' }).click();
  await page.getByRole('button', { name: 'Cancel at the end of the period' }).waitFor();
  t.match(await page.locator('#subscriptions').textContent(), /renews on/);

  const widths = await page.evaluate<{ scroll: number; client: number }>('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
  t.ok(widths.scroll <= widths.client, 'no horizontal scroll');

  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('E-mail address').waitFor();
  // The one failed load is the wrong code's page, answered 401 on purpose.
  t.same(
    problems.filter((p) => !/status of 401/.test(p)),
    [],
    'no CSP violation, script error or other failed load',
  );
});
