/**
 * The dashboard's insights page in Chromium: payment KPIs of the period (count, success rate,
 * volume, fees, net) with their days as a chart, the breakdown by operator, operator health and the
 * recommendations, each per environment. The service's clock starts at the browser's time, since
 * the page asks for periods ending on the browser's today.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, screenshot, startDashboard, withHeader } from '../../support/dashboard.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';
import { settle } from '../../support/webhooks.js';

const { svc, signedIn } = await startDashboard(t, { clockStart: Date.now(), env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('insights: three payments, two succeeded, as KPIs, a chart, by operator and operator health', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Librairie Kane');
  await navigate(page, 'Insights');
  await page.getByText('No payment in this period.').first().waitFor();
  await page.getByText('No recommendation right now.').waitFor();

  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  for (const [amount, ending] of [
    [10_000, '00'],
    [6_000, '05'],
    [4_000, '01'],
  ] as const) {
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

  // The success rate per day: a line with its legend, the figures a click away.
  const today = (locale: string) => new Date(svc.clock.now()).toLocaleDateString(locale, { timeZone: 'UTC', day: 'numeric', month: 'short' });
  const rate = page.getByRole('region', { name: 'Success rate' });
  t.match(await rate.getByRole('img').getAttribute('aria-label'), /^Success rate per day: 66\.7% of the payments decided over the period \(2 succeeded, 1 failed\)\.$/, "the success rate's chart says what it shows");
  t.equal(await rate.locator('canvas').count(), 1, 'and draws it');
  t.same(await rate.getByRole('list', { name: 'Legend' }).getByRole('listitem').allTextContents(), ['Success rate: 66.7%'], 'its legend: the colour named with the rate over the period');
  await rate.getByText('The figures, day by day').click();
  const rateDays = rate.getByRole('region', { name: 'The figures, day by day' });
  t.same(await rateDays.getByRole('columnheader').allTextContents(), ['Day', 'Success rate', 'Succeeded', 'Failed'], "the rate's table: the day, the rate and the payments behind it");
  t.equal(await rateDays.getByRole('row').count(), 2, 'one row: the only day with payments decided');
  t.same(
    await rateDays
      .getByRole('row', { name: today('en-GB') })
      .getByRole('cell')
      .allTextContents(),
    ['66.7%', '2', '1'],
    "today's row, the day as en-GB writes it",
  );

  // The split by operator over the period: bars of succeeded and failed payments per operator.
  const byOperator = page.getByRole('region', { name: 'By operator' });
  t.match(await byOperator.getByRole('img').getAttribute('aria-label'), /Orange Money, 2 succeeded and 1 failed/, 'the chart by operator says each operator’s payments');
  t.equal(await byOperator.locator('canvas').count(), 1, 'and draws them');
  t.same(await byOperator.getByRole('list', { name: 'Legend' }).getByRole('listitem').allTextContents(), ['Succeeded: 2', 'Failed: 1'], 'its legend, each colour named with its total');
  await byOperator.getByText('The figures, operator by operator').click();
  const operatorFigures = byOperator.getByRole('region', { name: 'The figures, operator by operator' });
  t.same(await operatorFigures.getByRole('columnheader').allTextContents(), ['Operator', 'Succeeded', 'Failed', 'Payments', 'Success rate', 'Volume', 'Net']);
  const orange = await operatorFigures
    .getByRole('row', { name: /Orange Money/ })
    .getByRole('cell')
    .allTextContents();
  t.same(orange.slice(0, 4), ['2', '1', '3', '66.7%'], 'by operator, named as the catalog names it, with its figures');
  t.match(orange[4], /16,000/, 'and the volume of those that succeeded');

  // Operator health: this week's failure rate beside the usual one.
  const health = page.getByRole('region', { name: 'Operator health' });
  t.match(await health.getByRole('img').getAttribute('aria-label'), /Orange Money 33\.3% \(usually/, "the health chart says each operator's failure rate");
  t.equal(await health.locator('canvas').count(), 1, 'and draws it');
  t.same(await health.getByRole('list', { name: 'Legend' }).getByRole('listitem').allTextContents(), ['Failure rate (last 7 days): 33.3%', 'Usual failure rate'], 'its legend names each colour, this week’s with its rate');
  await health.getByText('The figures, operator by operator').click();
  const healthFigures = health.getByRole('region', { name: 'The figures, operator by operator' });
  t.same(await healthFigures.getByRole('columnheader').allTextContents(), ['Operator', 'Failure rate (last 7 days)', 'Usual failure rate', 'Country', 'Attempts', 'Status']);
  const orangeHealth = await healthFigures
    .getByRole('row', { name: /Orange Money/ })
    .getByRole('cell')
    .allTextContents();
  t.same([orangeHealth[0], orangeHealth[2], orangeHealth[3]], ['33.3%', 'Senegal', '3'], 'the operator’s failure rate and attempts this week, its country by name');
  t.same(await accessibilityProblems(page), [], 'every chart with its table open: no serious or critical axe violation');

  const decisions = page.getByRole('region', { name: 'Decisions' });
  await decisions
    .getByRole('row', { name: /Payment routing/ })
    .first()
    .waitFor();
  t.equal(await decisions.getByRole('row', { name: /Payment routing/ }).count(), 3, 'a routing decision per confirmed payment');
  t.match(
    await decisions
      .getByRole('row', { name: /Payment routing/ })
      .first()
      .getByRole('link')
      .getAttribute('href'),
    /^\/dashboard\/payments\/pi_/,
    'each links to its payment',
  );
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

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  const taux = page.getByRole('region', { name: 'Taux de réussite' });
  await taux.waitFor();
  t.match((await taux.getByRole('list', { name: 'Légende' }).getByRole('listitem').allTextContents()).join(), /^Taux de réussite : 66,7\s%$/, 'the legend in French, the rate as French writes it');
  t.match(
    (
      await taux
        .getByRole('row', { name: today('fr-FR') })
        .getByRole('cell')
        .allTextContents()
    ).join('|'),
    /^66,7\s%\|2\|1$/,
    "the day as fr-FR writes it in the rate's table",
  );
  t.same(await page.getByRole('region', { name: 'Par opérateur' }).getByRole('list', { name: 'Légende' }).getByRole('listitem').allTextContents(), ['Réussis : 2', 'Échoués : 1'], 'the operators’ legend in French');
  t.match(await page.getByRole('region', { name: 'Santé des opérateurs' }).getByRole('img').getAttribute('aria-label'), /Orange Money 33,3\s% \(d’habitude/, 'the health chart said in French');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');

  await page.getByRole('combobox', { name: 'Period' }).selectOption('7');
  await xof.waitFor();
  t.match(await xof.locator('dl').textContent(), /Payments3/, 'this week has them too');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No payment in this period.').first().waitFor();
  t.pass('live has none');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
