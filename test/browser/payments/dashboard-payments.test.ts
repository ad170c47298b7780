/**
 * The dashboard's payments pages (apps/dashboard/src/families/payments/Payments.tsx, Payment.tsx) in Chromium:
 * the list filtered by status, day, amount and a search; a payment's page with its figures, its
 * history from the log with who caused each step, a partial refund then the rest (a double click
 * refunds once), the API's refusal once nothing is left; another merchant's payment is "not
 * found"; live shows its own; axe-core, 320 px.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { accessibilityProblems, listFilters, listsAt, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { fund } from '../../support/payouts.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';
import { utcDay } from '../../../apps/dashboard/src/shell/days.js';

const { svc, signedIn } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

/** Waits until the list shows exactly these payments, in this order (a new filter first shows "loading"). */
async function listShows(page: Page, ids: string[]): Promise<void> {
  await page.waitForFunction((ids) => {
    // In the page (the test's own TypeScript has no DOM types).
    const { document } = globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> } };
    const rows = Array.from(document.querySelectorAll('main table tbody tr'), (r) => r.textContent ?? '');
    return rows.length === ids.length && ids.every((id, i) => rows[i]!.includes(id));
  }, ids);
}

t.test('payments: filter and search the list, open one, its history and fees, refund part then the rest', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Paiements');
  const refused = refusals(page);
  const { id: keyId, secret: key } = await svc.apiKey(merchant.id, ['*']);
  const paid = await createIntent(svc, key, { amount: 10_000, description: 'Basket of mangoes' });
  const refusedByOperator = await createIntent(svc, key, { amount: 25_000, description: 'Red shoes' });
  for (const [intent, ending] of [
    [paid, '00'],
    [refusedByOperator, '01'],
  ] as const) {
    if ((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber(ending)) })).status !== 200) throw new Error('confirm failed');
  }
  await operatorAnswers(svc);
  const open = await createIntent(svc, key, { amount: 4_000, description: 'Straw hat' });

  await navigate(page, 'Payments');
  const table = page.getByRole('region', { name: 'Payments' });
  await listShows(page, [open.id, refusedByOperator.id, paid.id]);
  t.pass('three payments, newest first');
  const filters = await listFilters(page, 'Filter payments');
  await filters.getByLabel('Status').selectOption({ label: 'Succeeded' });
  await filters.getByRole('button', { name: 'Apply' }).click();
  await listShows(page, [paid.id]);
  t.pass('by status');
  await filters.getByRole('button', { name: 'Clear' }).click();
  await listShows(page, [open.id, refusedByOperator.id, paid.id]);
  await filters.getByLabel('Smallest amount').fill('5000');
  await filters.getByLabel('Largest amount').fill('20000');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await listShows(page, [paid.id]);
  t.pass('by amount: only the 10,000');
  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('Search').fill('shoes');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await listShows(page, [refusedByOperator.id]);
  t.match(await table.getByRole('row').nth(1).textContent(), /^Red shoes.*Failed/, 'by words of the description (the description first)');
  await filters.getByRole('button', { name: 'Clear' }).click();
  const tomorrow = utcDay(svc.clock.now().getTime() + 86_400_000);
  await filters.getByLabel('From (day)').fill(tomorrow);
  await filters.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('No payment matches.').waitFor();
  t.pass('by day: none from tomorrow');
  await filters.getByRole('button', { name: 'Clear' }).click();
  await listShows(page, [open.id, refusedByOperator.id, paid.id]);
  t.same(await accessibilityProblems(page), [], 'the list: no serious or critical axe violation');
  t.same(await listsAt(page, 1280).then(({ tables, cards, cut }) => ({ tables, cards, cut })), { tables: 1, cards: false, cut: [] }, 'at 1280 px a table with no column cut');
  t.same(await listsAt(page, 320), { tables: 1, cards: true, unlabelled: [], cut: [] }, 'at 320 px each payment is a two-line card');
  await page.setViewportSize({ width: 320, height: 640 });
  t.same(await accessibilityProblems(page), [], 'the payments as cards: no serious or critical axe violation');
  await page.setViewportSize({ width: 360, height: 740 });
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(await table.getByRole('columnheader').allTextContents(), ['Description', 'Customer', 'Amount', 'Status', 'Created', 'Id'], 'the description first, the id last');
  await screenshot(page, 'payments');

  await table.getByRole('link', { name: 'Basket of mangoes' }).click();
  await page.getByRole('heading', { name: /^Payment/, level: 1 }).waitFor();
  const facts = page.locator('dl.facts');
  t.match(await facts.textContent(), /StatusSucceeded.*Amount\D*10,000/, 'its figures');
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('row', { name: /Paid/ }).waitFor();
  t.match(await history.getByRole('row', { name: /Created/ }).textContent(), new RegExp(`API key ${keyId}|API key`), 'who created it: the API key');
  t.match(await history.getByRole('row', { name: /Paid/ }).textContent(), /The operator/, 'who said it succeeded: the operator');

  const refund = page.getByRole('form', { name: 'Refund' });
  await refund.getByLabel(/Amount to refund/).fill('3000');
  // One gesture's two clicks: two separate click() calls each wait for an enabled button, so the
  // second could land after the first refund is made and rightly refund the rest.
  await refund.getByRole('button', { name: 'Refund' }).dblclick();
  await page
    .getByRole('status')
    .filter({ hasText: /Refund of \D*3,000 made/ })
    .waitFor();
  const refunds = page.getByRole('region', { name: 'Refunds' });
  await refunds.getByRole('row', { name: /3,000/ }).waitFor();
  const stored = (await svc.request('GET', `/api/v1/merchant/payments/${paid.id}/refunds`, { key })).body.data as { amount: number }[];
  t.same(
    stored.map((r) => r.amount),
    [3_000],
    'one refund, however often it was pressed',
  );
  // The rest is more than the balance has: the fee went to Sika. The API's words, and a failed refund.
  await refund.getByRole('button', { name: 'Refund' }).click();
  t.match(await refunds.getByRole('alert').textContent(), /available balance does not cover/, "the API's refusal, by the form");
  await refunds.getByRole('row', { name: /Failed/ }).waitFor();
  await fund(svc, merchant.id, 1_000);
  await refund.getByRole('button', { name: 'Refund' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Refund of \D*7,000 made/ })
    .waitFor();
  await facts.filter({ hasText: /Refunded\D*10,000/ }).waitFor();
  await refunds.getByText('Nothing left to refund.').waitFor();
  t.same(
    ((await svc.request('GET', `/api/v1/merchant/payments/${paid.id}/refunds`, { key })).body.data as { amount: number; status: string }[]).map((r) => [r.amount, r.status]).sort(),
    [
      [3_000, 'succeeded'],
      [7_000, 'failed'],
      [7_000, 'succeeded'],
    ],
    'the API holds the refunds',
  );
  t.same(await accessibilityProblems(page), [], 'a payment: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'payment');

  await page.getByRole('link', { name: 'All payments' }).click();
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No payment matches.').waitFor();
  t.pass('live has its own payments');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, [`400 POST /api/v1/merchant/payments/${paid.id}/refund`], 'no refused request but the refund the balance could not cover');
});

t.test('payments: a failed payment says why, in its list and on its page; operators, methods and dates in English and French', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Refusée');
  // The list's reasons and ids are in its table; a phone's two-line cards leave them to the payment's page.
  await page.setViewportSize({ width: 1280, height: 800 });
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const refused = await createIntent(svc, key, { amount: 6_000, description: 'Blue bag' });
  // A number ending in 01: the payer's wallet is too low (README, "Sandbox test numbers").
  if ((await confirm(svc, key, refused.id, { payment_method: mobileMoney(snNumber('01')) })).status !== 200) throw new Error('confirm failed');
  await operatorAnswers(svc);
  const created = (refused as { created: number }).created;
  const day = (locale: string) => new Date(created * 1000).toLocaleDateString(locale, { dateStyle: 'medium' });

  await navigate(page, 'Payments');
  const row = page.getByRole('region', { name: 'Payments' }).getByRole('row', { name: new RegExp(refused.id) });
  await row.filter({ hasText: 'Failed' }).waitFor();
  t.match(
    await row.textContent(),
    new RegExp(`^Blue bag.*6,000.*Failed.*The payer’s wallet balance is too low insufficient_funds.*${day('en-GB')}.*${refused.id}`),
    'the list: its description first, why it failed in words and code, its date, its id',
  );
  await row.getByRole('link', { name: 'Blue bag' }).click();
  const facts = page.locator('dl.facts');
  await facts.filter({ hasText: 'Why it failed' }).waitFor();
  t.match(await facts.textContent(), /StatusFailedWhy it failedThe payer’s wallet balance is too low insufficient_funds/, 'its page says why');
  t.match(await facts.textContent(), /Paid withOrange Money · ••••4501/, 'the operator by its name');
  t.same(await accessibilityProblems(page), [], 'a failed payment: no serious or critical axe violation');
  await screenshot(page, 'payment-failed');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await facts.filter({ hasText: 'Motif de l’échec' }).waitFor();
  t.match(await facts.textContent(), /StatutÉchouéMotif de l’échecLe solde du portefeuille du payeur est insuffisant insufficient_funds/, 'in French');
  t.match(await facts.textContent(), new RegExp(`Créé${day('fr-FR')}`), 'the date in French');
  await page.getByRole('link', { name: 'Tous les paiements' }).click();
  const rowFr = page.getByRole('region', { name: 'Paiements' }).getByRole('row', { name: new RegExp(refused.id) });
  await rowFr.filter({ hasText: 'Échoué' }).waitFor();
  t.match(await rowFr.textContent(), new RegExp(`6\\s000.*Échoué.*Le solde du portefeuille du payeur est insuffisant.*${day('fr-FR')}`), 'the list in French: the amount, the reason and the date');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test("payments: another merchant's payment in the address is not found", async (t) => {
  const { page } = await signedIn(t, 'Curious shop');
  const other = await svc.merchant('Private shop');
  const { secret: otherKey } = await svc.apiKey(other.id, ['*']);
  const theirs = await createIntent(svc, otherKey, { amount: 1_000 });
  await page.goto(`${svc.baseUrl}/dashboard/payments/${theirs.id}`);
  await page.getByText('No such payment in this environment.').waitFor();
  await page.getByRole('link', { name: 'All payments' }).waitFor();
  t.pass('not found, with a way back');
});
