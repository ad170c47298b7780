/**
 * The dashboard's insights page in Chromium: payment KPIs of the period (count, success rate,
 * volume, fees, net) with their days as a chart, the breakdown by operator, operator health and the
 * recommendations, each per environment. The service's clock starts at the browser's time, since
 * the page asks for periods ending on the browser's today.
 */
import t from 'tap';
import { accessibilityProblems, navigate, overflowAt, screenshot, startDashboard } from '../support/dashboard.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../support/payment-intents.js';
import { OPERATOR_DELAY_MS } from '../support/system.js';
import { settle } from '../support/webhooks.js';

const { svc, signedIn } = await startDashboard(t, { clockStart: Date.now(), env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('insights: three payments, two succeeded, as KPIs, a chart, by operator and operator health', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Librairie Kane');
  await navigate(page, 'Insights');
  await page.getByText('No payment in this period.').first().waitFor();
  await page.getByText('No recommendation right now.').waitFor();

  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  for (const [amount, ending] of [[10_000, '00'], [6_000, '05'], [4_000, '01']] as const) {
    const intent = await createIntent(svc, key, { amount, ...(ending === '00' ? { customer_email: 'fatou@example.com' } : {}) });
    t.equal((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber(ending)) })).status, 200);
  }
  await operatorAnswers(svc);
  await settle(svc);
  await page.reload();

  const xof = page.getByRole('group', { name: 'XOF' });
  await xof.waitFor();
  const figures = (await xof.locator('dl').textContent())!;
  t.match(figures, /Payments3Succeeded2Failed1Success rate66\.7%/, 'three payments, two succeeded');
  t.match(figures, /Volume\D*16,000/, 'the volume of those that succeeded');
  t.match(await xof.getByRole('img').getAttribute('aria-label'), /in XOF: \D*16,000\D* received/, "the chart's figures said");
  t.equal(await xof.locator('canvas').count(), 1, 'and drawn');
  t.match(await xof.getByRole('list', { name: 'Legend' }).getByRole('listitem').allTextContents(), [/^Volume: F\sCFA\s16,000$/, /^Refunds: F\sCFA\s0$/], 'its legend, each colour named with its total');
  await xof.getByText('The figures, day by day').click();
  const days = xof.getByRole('region', { name: 'The figures, day by day' });
  const cells = await Promise.all((await days.getByRole('row').all()).slice(1).map(async (row) => (await row.getByRole('cell').allTextContents()).map((cell) => Number(cell.replace(/\D/g, '')))));
  t.same(
    cells.reduce((sum, [volume]) => sum + volume!, 0),
    16_000,
    "the chart's table holds the same figures: its days' volumes add up to the period's",
  );
  t.same(await accessibilityProblems(page), [], 'the chart with its table open: no serious or critical axe violation');

  const byOperator = page.getByRole('region', { name: 'By operator' }).getByRole('row', { name: /Orange Money/ });
  t.match(await byOperator.textContent(), /Orange Money366\.7%/, 'by operator, named as the catalog names it');
  const health = page.getByRole('region', { name: 'Operator health' }).getByRole('row', { name: /Orange Money/ });
  t.match(await health.textContent(), /Senegal3/, 'the operator’s attempts this week, its country by name');

  const decisions = page.getByRole('region', { name: 'Decisions' });
  await decisions.getByRole('row', { name: /Payment routing/ }).first().waitFor();
  t.equal(await decisions.getByRole('row', { name: /Payment routing/ }).count(), 3, 'a routing decision per confirmed payment');
  t.match(await decisions.getByRole('row', { name: /Payment routing/ }).first().getByRole('link').getAttribute('href'), /^\/dashboard\/payments\/pi_/, 'each links to its payment');
  await decisions.getByLabel('Kind').selectOption({ label: 'Payout failed' });
  await decisions.getByText('No decision yet.').waitFor();
  t.pass('filtered by kind');
  const lifecycle = page.getByRole('region', { name: 'Paying customers' });
  t.match(await lifecycle.locator('dl').textContent(), /New1.*Active0.*At risk0.*Churned0/, 'one new paying customer');
  await lifecycle.getByRole('row', { name: /fatou@example\.com|cus_/ }).waitFor();
  await lifecycle.getByLabel('Stage').selectOption({ label: 'Churned' });
  await lifecycle.getByText('No paying customer yet.').waitFor();
  const suggestions = page.getByRole('region', { name: 'Suggestions' });
  await suggestions.getByText('Save a payout destination').waitFor();
  t.equal(await suggestions.getByRole('link', { name: 'Open: Save a payout destination' }).getAttribute('href'), '/dashboard/payouts', 'a suggestion opens the page that acts on it');

  t.same(await accessibilityProblems(page), [], 'insights: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'insights');

  await page.getByLabel('Period').selectOption('7');
  await xof.waitFor();
  t.match(await xof.locator('dl').textContent(), /Payments3/, 'this week has them too');
  await page.getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No payment in this period.').first().waitFor();
  t.pass('live has none');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
