/**
 * The Refunds page (apps/dashboard/src/families/billing/Refunds.tsx) in Chromium: the refunds of
 * every payment, a filter, the CSV export with the list's filters, none of another merchant's;
 * in French; axe-core.
 */
import { parse } from 'csv-parse/sync';
import t from '#tap';
import { succeededPayment } from '../../support/billing.js';
import { accessibilityProblems, listFilters, navigate, startDashboard, withHeader } from '../../support/dashboard.js';
import { downloaded } from '../../support/browser.js';

const { svc, signedIn } = await startDashboard(t);

t.test('the refunds of every payment, filtered and exported; another merchant’s never shown', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Remboursements');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const other = await svc.sandboxMerchant('Other refunds');
  const paid = await succeededPayment(svc, key, 12_000);
  const refund = async (k: string, id: string, body: Record<string, unknown>) => (await svc.request('POST', `/api/v1/merchant/payments/${id}/refund`, { key: k, body })).body as { id: string };
  const first = await refund(key, paid.id, { amount: 2_000, reason: 'requested_by_customer' });
  const second = await refund(key, paid.id, { amount: 500, reason: 'duplicate' });
  const theirPayment = await succeededPayment(svc, other.key, 9_000);
  const theirs = await refund(other.key, theirPayment.id, { amount: 700 });

  await navigate(page, 'Refunds');
  const list = page.getByRole('region', { name: 'Refunds' });
  await list.waitFor();
  const rows = list.getByRole('row');
  t.equal(await rows.count(), 3, 'a header and two refunds');
  // textContent: a phone's two-line card shows the payment, amount, status and date; the reason and id are in the row all the same.
  t.match(await rows.nth(1).textContent(), /Duplicate/, 'newest first, with its reason');
  t.match(await rows.nth(2).textContent(), /Asked by the customer/);
  t.notOk((await list.textContent())!.includes(theirs.id), 'another merchant’s refund is not listed');
  t.equal(await rows.nth(1).getByRole('link', { name: paid.id }).getAttribute('href'), `/dashboard/payments/${paid.id}`, 'each names its payment, linked');
  t.same(await accessibilityProblems(page), [], 'the refunds list: no serious or critical axe violation');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await download;
  t.match(file.suggestedFilename(), /^refunds-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
  const exported = parse((await downloaded(file)).toString('utf8'), { columns: true }) as Record<string, string>[];
  t.same(
    exported.map((r) => [r.id, r.payment_intent, r.amount, r.reason]),
    [
      [second.id, paid.id, '500', 'duplicate'],
      [first.id, paid.id, '2000', 'requested_by_customer'],
    ],
  );

  const filters = await listFilters(page, 'Filter refunds');
  await filters.getByLabel('Status').selectOption('failed');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('No refund matches.').waitFor();
  t.pass('the status filter leaves none');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Remboursements' }).waitFor();
  t.ok(await page.getByRole('button', { name: 'Exporter en CSV' }).isVisible(), 'in French');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
