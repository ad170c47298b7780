/**
 * The lists' "Export CSV" (apps/dashboard/src/shell/components.tsx, CsvExport) in Chromium: 10,000
 * payments download completely, the list's filters hold, another merchant's rows never appear;
 * the payouts list exports too; the button in French; axe-core.
 */
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import t from '#tap';
import { accessibilityProblems, listFilters, navigate, startDashboard, withHeader } from '../../support/dashboard.js';
import { bulkPayments } from '../../support/payments.js';
import { fund, mobileMoney, payout } from '../../support/payouts.js';
import { downloaded } from '../../support/browser.js';

const { svc, signedIn } = await startDashboard(t);

/** Clicks the export button and reads the file the browser saved. */
async function exported(page: Page, button: string): Promise<{ name: string; rows: Record<string, string>[] }> {
  const download = page.waitForEvent('download', { timeout: 120_000 });
  await page.getByRole('button', { name: button }).click();
  const file = await download;
  return { name: file.suggestedFilename(), rows: parse((await downloaded(file)).toString('utf8'), { columns: true }) as Record<string, string>[] };
}

t.test('payments: an export of 10,000 downloads completely, filtered as the list, none of another merchant', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Export');
  const other = await svc.sandboxMerchant('Other export');
  await bulkPayments(svc, merchant.id, 10_000, 1_767_300_000);
  await svc.system.knex.raw(`UPDATE read.payment_intents SET merchant_id = ? WHERE id IN ('pi_bulk000001', 'pi_bulk000002')`, [other.merchant.id]);

  await navigate(page, 'Payments');
  await page.getByRole('region', { name: 'Payments' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'payments with the export: no serious or critical axe violation');
  const started = Date.now();
  const all = await exported(page, 'Export CSV');
  t.comment(`9,998 payments exported and saved by the browser in ${Date.now() - started} ms`);
  t.match(all.name, /^payments-sandbox-\d{4}-\d{2}-\d{2}\.csv$/);
  t.equal(all.rows.length, 9_998, 'every payment of the merchant, not only the page shown');
  t.equal(new Set(all.rows.map((r) => r.id)).size, 9_998, 'none twice');
  t.notOk(
    all.rows.some((r) => r.id === 'pi_bulk000001' || r.id === 'pi_bulk000002'),
    'another merchant’s rows never appear',
  );
  t.match(all.rows[0], { id: 'pi_bulk010000', description: 'Bulk, order 10000', amount: '11000', status: 'succeeded', operator: 'orange_money' });

  const filters = await listFilters(page, 'Filter payments');
  await filters.getByLabel('Smallest amount').fill('10995');
  await filters.getByRole('button', { name: 'Apply' }).click();
  const filtered = await exported(page, 'Export CSV');
  t.same(
    filtered.rows.map((r) => r.id),
    ['pi_bulk010000', 'pi_bulk009999', 'pi_bulk009998', 'pi_bulk009997', 'pi_bulk009996', 'pi_bulk009995'],
    'the list’s filters hold',
  );

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  t.ok(await page.getByRole('button', { name: 'Exporter en CSV' }).isVisible(), 'the button in French');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('payouts: the list exports its payouts', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Versements');
  await fund(svc, merchant.id, 50_000);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const made = await payout(svc, key, { amount: 10_000, destination: mobileMoney('41') });
  await navigate(page, 'Payouts');
  // The list's section and its table's region are both named Payouts.
  await page.getByRole('region', { name: 'Payouts' }).first().waitFor();
  const file = await exported(page, 'Export CSV');
  t.match(file.name, /^payouts-sandbox-/);
  t.same(
    file.rows.map((r) => [r.id, r.amount, r.status]),
    [[made.id, '10000', made.status]],
  );
  t.same(await accessibilityProblems(page), [], 'payouts with the export: no serious or critical axe violation');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
