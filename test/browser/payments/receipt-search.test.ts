/**
 * A receipt the merchant can find (issue 65, item 3), in Chromium: a payer pays a payment link on
 * the hosted page and reads the receipt (amount, date, method, the merchant, the reference); the
 * merchant types that reference into the dashboard's payment search and finds the payment, then
 * the last four digits of the payer's number find it too, and another payer's e-mail finds theirs. axe-core clean.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { createLink, snNumber } from '../../support/checkout.js';
import { accessibilityProblems, listFilters, navigate, screenshot, startDashboard } from '../../support/dashboard.js';
import { closeAtEnd, openPage } from '../../support/browser.js';
import { confirm, createIntent, mobileMoney, operatorAnswers } from '../../support/payments.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';

const { svc, browser, signedIn } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

/** Waits until the payments list shows exactly these payments. */
async function listShows(page: Page, ids: string[]): Promise<void> {
  await page.waitForFunction((ids) => {
    const { document } = globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> } };
    const rows = Array.from(document.querySelectorAll('main table tbody tr'), (r) => r.textContent ?? '');
    return rows.length === ids.length && ids.every((id, i) => rows[i]!.includes(id));
  }, ids);
}

t.test('the receipt’s reference, typed into the dashboard’s search, finds the payment', async (t) => {
  const { merchant, page } = await signedIn(t, 'Boutique Awa');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  // Another payment the search must tell apart: by another number, with the payer's e-mail.
  const other = await createIntent(svc, key, { amount: 3_000, customer_email: 'fatou@example.com' });
  if ((await confirm(svc, key, other.id, { payment_method: mobileMoney(snNumber('00')) })).status !== 200) throw new Error('confirm failed');
  const link = await createLink(svc, key, { amount: 7_500, description: 'Panier de mangues' });

  const { page: payer } = await openPage(browser);
  closeAtEnd(t, payer);
  await payer.setViewportSize({ width: 390, height: 844 });
  await payer.goto(`${svc.baseUrl}/pay/${link.slug}`);
  await payer.getByLabel('Mobile money operator').selectOption('orange_money');
  await payer.getByLabel('Mobile money number').fill(snNumber('67'));
  await payer.getByRole('button', { name: /^Pay/ }).click();
  await payer.locator('#status').waitFor();
  await operatorAnswers(svc);
  await payer.locator('#receipt').waitFor({ timeout: 20_000 });
  const reference = ((await payer.locator('#receipt-reference').textContent()) ?? '').trim();
  t.match(reference, /^pi_\w+$/, 'the receipt names the payment');
  t.match(await payer.locator('#receipt-amount').textContent(), /7,500/);
  t.match(await payer.locator('#receipt-method').textContent(), /Orange Money ••4567/);
  t.match(await payer.locator('#receipt').textContent(), /Boutique Awa/, 'the merchant paid');
  t.same(await accessibilityProblems(payer), [], 'the receipt: axe clean');
  await screenshot(payer, 'receipt');

  await navigate(page, 'Payments');
  // On a phone the filters fold behind a button; the fold may close again after each search.
  const search = async (q: string) => {
    const filters = await listFilters(page, 'Filter payments');
    await filters.getByLabel('Search').fill(q);
    await filters.getByRole('button', { name: 'Apply' }).click();
  };
  await search(reference);
  await listShows(page, [reference]);
  t.pass('the reference finds the payment');
  await search('nothing-like-it');
  await page.getByText('No payment matches.').waitFor();
  await search('4567');
  await listShows(page, [reference]);
  t.pass('the last four digits of the payer’s number find it');
  await search('FATOU@example.com');
  await listShows(page, [other.id]);
  t.pass('the payer’s e-mail finds the other');
  t.same(await accessibilityProblems(page), [], 'the search: axe clean');
  await screenshot(page, 'payments-search-receipt');
});
