/**
 * The dashboard's home page in Chromium: the last 30 days of money in and out (the chart, its
 * totals and its figures as a table), and the latest balance transactions linking to what they
 * are for, each per environment. The service's clock starts at the browser's time, since the
 * page asks for the 30 days up to the browser's today.
 */
import t from '#tap';
import { accessibilityProblems, overflowAt, screenshot, startDashboard, withHeader } from '../support/dashboard.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../support/payments.js';
import { mobileMoney as payoutDestination, payout, retrievePayout } from '../support/payouts.js';
import { OPERATOR_DELAY_MS } from '../support/system.js';

const { svc, signedIn } = await startDashboard(t, { clockStart: Date.now(), env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('home: a quiet month, then a payment in and a payout out on the chart and in the activity', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Maison Diallo');
  await page.getByText('No money moved in the last 30 days.').waitFor();
  await page.getByText('Nothing has moved on the balance yet.').waitFor();

  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const intent = await createIntent(svc, key, { amount: 12_500 });
  t.equal((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('00')) })).status, 200);
  await operatorAnswers(svc);
  const paid = await payout(svc, key, { amount: 2_000, currency: 'xof', destination: payoutDestination() });
  await operatorAnswers(svc);
  t.equal((await retrievePayout(svc, key, paid.id)).status, 'paid', 'the payout is paid');

  await page.reload();
  const totals = page.locator('dl.totals');
  await totals.waitFor();
  t.match(await totals.textContent(), /Payments in.*12,500.*Payouts out.*2,000/s, "the month's totals");
  const chart = page.getByRole('img', { name: /Money in and out per day/ });
  t.match(await chart.getAttribute('aria-label'), /in XOF: .*12,500.* in, .*2,000.* out/, 'the chart says its figures to a screen reader');
  t.equal(await chart.locator('canvas').count(), 1, 'and draws them');

  const legend = page.getByRole('list', { name: 'Legend' }).getByRole('listitem');
  t.match(await legend.allTextContents(), [/^Payments in: F\sCFA\s12,500$/, /^Payouts out: F\sCFA\s2,000$/], 'a legend names each colour with its total');
  t.equal(await legend.locator('svg rect').count(), 2, 'each beside its colour');

  await page.getByText('The figures, day by day').click();
  const figures = page.getByRole('region', { name: 'The figures, day by day' });
  t.same(await figures.getByRole('columnheader').allTextContents(), ['Day', 'Payments in', 'Payouts out', 'Fees'], 'the figures as a table');
  const today = new Date(svc.clock.now()).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });
  const day = figures.getByRole('row', { name: new RegExp(today) });
  t.match(await day.textContent(), /12,500.*2,000/, "today's row of the figures, its day as the merchant's language writes it");
  const rows = await Promise.all((await figures.getByRole('row').all()).slice(1).map(async (row) => (await row.getByRole('cell').allTextContents()).map((cell) => Number(cell.replace(/\D/g, '')))));
  const sum = (column: number) => rows.reduce((total, cells) => total + cells[column]!, 0);
  t.same([sum(0), sum(1)], [12_500, 2_000], "the table's days add up to the legend's and the chart's totals");

  const activity = page.getByRole('region', { name: 'Recent activity' });
  // Named by how the payer paid (the payment has no description) and by the recipient, not by ids.
  const paymentLink = activity.getByRole('link', { name: /^Orange Money ••\d{4}$/ });
  t.equal(await paymentLink.getAttribute('href'), `/dashboard/payments/${intent.id}`, 'the payment links to its page');
  t.equal(await activity.getByRole('link', { name: /^Orange Money · / }).getAttribute('href'), `/dashboard/payouts/${paid.id}`, 'the payout to its page');
  t.match(await activity.getByRole('row', { name: /Orange Money ••/ }).textContent(), /12,500/);

  t.same(await accessibilityProblems(page), [], 'home: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px, chart included');
  await screenshot(page, 'home');

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No money moved in the last 30 days.').waitFor();
  await page.getByText('Nothing has moved on the balance yet.').waitFor();
  t.pass('live has its own, empty, month');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Les 30 derniers jours' }).waitFor();
  await (await withHeader(page)).getByRole('radio', { name: 'Test' }).check();
  const frenchTotals = page.locator('dl.totals');
  await frenchTotals.waitFor();
  t.match(await frenchTotals.textContent(), /Paiements reçus.*12\s500/s, 'in French, French numbers');
  t.match(await page.getByRole('list', { name: 'Légende' }).textContent(), /Paiements reçus : 12\s500\sF\sCFA/, 'the legend in French');
  await page.getByText('Les chiffres, jour par jour').click();
  const aujourdhui = new Date(svc.clock.now()).toLocaleDateString('fr-FR', { timeZone: 'UTC', day: 'numeric', month: 'short' });
  t.match(
    await page
      .getByRole('region', { name: 'Les chiffres, jour par jour' })
      .getByRole('row', { name: new RegExp(aujourdhui) })
      .textContent(),
    /12\s500.*2\s000/,
    'the figures with the day in French',
  );
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
