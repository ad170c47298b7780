/**
 * The dashboard's payment links page in Chromium: a link created (its URL, copy button and QR
 * code), paid in a second tab on the hosted checkout, listed, filtered and deactivated (its page
 * then takes no payment); the API's refusal shown; one link however often Create is pressed; the
 * other environment's list.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { closeAtEnd, openPage } from '../../support/browser.js';
import { operatorAnswers, snNumber } from '../../support/payments.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';
import { copiedBy } from '../../support/clipboard.js';

const { svc, browser, signedIn } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('payment links: create, share, pay in a second tab, deactivate', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Mango stall');
  const refused = refusals(page);
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });
  await navigate(page, 'Payment links');
  await page.getByText('No payment link in this environment yet.').waitFor();

  const form = page.getByRole('form', { name: 'New payment link' });
  await form.getByLabel(/Amount/).fill('0');
  await form.getByRole('button', { name: 'Create the link' }).click();
  t.match(await page.getByRole('alert').textContent(), /amount/i, "the API's refusal, by the form");

  await form.getByLabel(/Amount/).fill('7500');
  await form.getByLabel('What it is for').fill('Basket of mangoes');
  const create = form.getByRole('button', { name: 'Create the link' });
  await create.dblclick();
  const created = page.getByRole('status').filter({ hasText: 'Payment link created' });
  await created.waitFor();
  const url = (await created.getByRole('link').textContent())!;
  t.match(url, /\/pay\/[0-9A-Za-z]{16}$/, 'the URL to share');
  t.ok(await created.getByRole('img', { name: 'QR code of the payment link Basket of mangoes' }).isVisible(), 'and its QR code');
  const copied = await copiedBy(page, async () => {
    await created.getByRole('button', { name: 'Copy the link: Basket of mangoes' }).click();
    await created.getByText('Copied').waitFor();
  });
  t.equal(copied, url, 'copied');

  const row = page.getByRole('row', { name: /Basket of mangoes/ });
  await row.waitFor();
  t.equal(await row.count(), 1, 'one link, however often Create was pressed');
  t.match(await row.textContent(), /7,500.*Active/);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const listed = (await svc.request('GET', '/api/v1/payment_links', { key })).body.data;
  t.match(listed, [{ amount: 7_500, currency: 'xof', description: 'Basket of mangoes', active: true }], 'the API holds it');
  t.same(await accessibilityProblems(page), [], 'payment links: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'payment-links');

  // The customer opens the link in a second tab (the link names the service's PUBLIC_URL; the test's service listens elsewhere).
  const customer = await openPage(browser);
  closeAtEnd(t, customer.page);
  await customer.page.goto(`${svc.baseUrl}${new URL(url).pathname}`);
  await customer.page.getByLabel('Mobile money operator').selectOption('orange_money');
  await customer.page.getByLabel('Mobile money number').fill(snNumber('05'));
  await customer.page.getByRole('button', { name: /^Pay/ }).click();
  await customer.page.getByText(/Approve the payment on your phone/).waitFor();
  await operatorAnswers(svc);
  const payments = (await svc.request('GET', '/api/v1/payment-intents', { key })).body.data;
  t.match(payments, [{ amount: 7_500, status: 'succeeded' }], 'paid through the link');

  await row.getByRole('button', { name: 'QR code: Basket of mangoes' }).click();
  t.ok(await row.getByRole('img', { name: /QR code/ }).isVisible(), "a listed link's QR code");
  await row.getByRole('button', { name: 'Deactivate: Basket of mangoes' }).click();
  await page.getByRole('row', { name: /Basket of mangoes.*Deactivated/ }).waitFor();
  t.equal((await svc.request('GET', `/api/v1/payment_links/${listed[0].id}`, { key })).body.active, false, 'deactivated in the API');
  const closed = await fetch(`${svc.baseUrl}${new URL(url).pathname}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
  t.not(closed.status, 303, 'its page no longer opens a payment');

  await page.getByLabel('Show').selectOption('true');
  await page.getByText('No payment link in this environment yet.').waitFor();
  await page.getByLabel('Show').selectOption('false');
  await page.getByRole('row', { name: /Basket of mangoes/ }).waitFor();

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No payment link in this environment yet.').waitFor();
  t.pass('live has its own links');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 POST /api/v1/payment_links'], 'no refused request but the refused amount');
});

t.test('payment links: eleven links page by page; the other environment starts on its first page', async (t) => {
  const { merchant, page } = await signedIn(t, 'Many links');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  for (let n = 1; n <= 11; n++) t.equal((await svc.request('POST', '/api/v1/payment_links', { key, body: { amount: 100 * n, currency: 'XOF', country: 'SN', description: `Link ${n}` } })).status, 200);
  await navigate(page, 'Payment links');
  const pager = page.getByRole('navigation', { name: 'Pages of payment links' });
  await page.getByRole('row', { name: /^Link 11 / }).waitFor();
  t.ok(await pager.getByRole('button', { name: 'Previous' }).isDisabled(), 'the first page has no previous');
  await pager.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('row', { name: /^Link 1 / }).waitFor();
  t.equal(await page.getByRole('row', { name: /^Link \d+ / }).count(), 1, 'the eleventh, oldest link alone on page two');
  t.ok(await pager.getByRole('button', { name: 'Next' }).isDisabled(), 'and no page three');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No payment link in this environment yet.').waitFor();
  await (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).check();
  await page.getByRole('row', { name: /^Link 11 / }).waitFor();
  t.pass('back in sandbox, the first page again (a cursor names one environment’s objects)');
});
