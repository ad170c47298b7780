/**
 * Payouts held for review in the dashboard (docs/risk.md, "Review"), in Chromium: the Payouts list
 * narrows to the held ones, each with its badge; a held payout's page says "Held for review" and
 * releases it (sent) or declines it with a reason (failed, its money back on the available
 * balance). French and axe-core.
 */
import t from '#tap';
import { accessibilityProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { balance, fund, mobileMoney, payout } from '../../support/payouts.js';

const { svc, signedIn, origin } = await startDashboard(t);
const rulesOff = { payerPaymentsPerHour: null, payerPaymentsPerDay: null, payoutsPerDestinationPerDay: null, amountCeiling: null, repeatedPayment: null };

t.test('the list shows the held payouts; a held payout released from its page, another declined with a reason', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Examen');
  await fund(svc, merchant.id, 100_000);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const rules = await svc.request('PUT', '/api/v1/risk/rules', { key, body: { ...rulesOff, payoutsPerDestinationPerDay: { limit: 1, action: 'review' } } });
  t.equal(rules.status, 200, rules.text);
  const destination = mobileMoney('81');
  const sent = await payout(svc, key, { amount: 1_000, destination });
  const toRelease = await payout(svc, key, { amount: 2_000, destination });
  const toDecline = await payout(svc, key, { amount: 3_000, destination });
  t.equal(toDecline.review_status, 'held', 'held by the rules');

  await page.goto(`${origin}/dashboard/payouts`);
  const rows = page.locator('section[aria-labelledby="payout-list"] tbody tr');
  await rows.filter({ hasText: sent.id }).waitFor();
  await page.getByLabel('Held for review only').check();
  await rows.filter({ hasText: toRelease.id }).waitFor();
  await rows.filter({ hasText: sent.id }).waitFor({ state: 'detached' });
  t.equal(await rows.count(), 2, 'only the two held payouts');
  t.match(await rows.first().textContent(), /Held for review/, 'each with its badge');

  await page.goto(`${origin}/dashboard/payouts/${toRelease.id}`);
  const review = page.getByRole('region', { name: 'Held for review' });
  await review.waitFor();
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('region', { name: 'Retenu pour examen' }).getByRole('button', { name: 'Libérer' }).waitFor();
  t.pass('in French');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  await review.getByRole('button', { name: 'Release' }).click();
  await page.locator('dl.facts').filter({ hasText: 'Released after review' }).waitFor();
  await review.waitFor({ state: 'detached' });
  t.equal((await svc.request('GET', `/api/v1/payouts/${toRelease.id}`, { key, headers: { 'x-environment': 'sandbox' } })).body.review_status, 'released', 'the API has it released');

  const before = await balance(svc, key);
  await page.goto(`${origin}/dashboard/payouts/${toDecline.id}`);
  await review.getByRole('button', { name: 'Decline' }).click();
  await review.getByLabel('Reason (optional)').fill('Not ours');
  await review.getByRole('button', { name: 'Decline the payout' }).click();
  await page.locator('dl.facts').filter({ hasText: 'Declined in review' }).waitFor();
  t.match(await page.locator('dl.facts').textContent(), /Not ours/, 'why it failed: the reason');
  const declined = (await svc.request('GET', `/api/v1/payouts/${toDecline.id}`, { key, headers: { 'x-environment': 'sandbox' } })).body;
  t.match(declined, { status: 'failed', review_status: 'declined', failure_code: 'declined_in_review' });
  t.equal((await balance(svc, key)).available, before.available + declined.amount + declined.fee, 'its money back on the available balance');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
