/**
 * Issue 65 §9, a payout's page in Chromium: a failed payout says nothing of a delay or an arrival
 * (it will not arrive); a paid one says when it was paid; in English and French; axe-core.
 */
import t from '#tap';
import { accessibilityProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { fund, mobileMoney, payout, retrievePayout } from '../../support/payouts.js';
import { advance, OPERATOR_DELAY_MS } from '../../support/system.js';

const { svc, signedIn, origin } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('a failed payout shows no delay nor arrival; a paid one shows when it was paid', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Virements');
  await fund(svc, merchant.id, 50_000);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  // A number ending in 03: delayed (the operator does not answer in time), then failed.
  const failed = await payout(svc, key, { amount: 3_000, destination: mobileMoney('03') });
  const paid = await payout(svc, key, { amount: 4_000, destination: mobileMoney('41') });
  for (let i = 0; i < 6 && (await retrievePayout(svc, key, failed.id)).status !== 'failed'; i++) await advance(svc, 10 * OPERATOR_DELAY_MS);
  t.equal((await retrievePayout(svc, key, failed.id)).status, 'failed', 'the first payout failed');
  t.equal((await retrievePayout(svc, key, paid.id)).status, 'paid', 'the second was paid');

  await page.goto(`${origin}/dashboard/payouts/${failed.id}`);
  const facts = page.locator('dl.facts');
  await facts.filter({ hasText: 'Why it failed' }).waitFor();
  const failedFacts = (await facts.textContent())!;
  t.notMatch(failedFacts, /Delay|On time|Expected by|Estimated arrival/, `a failed payout: no delay, no arrival (${failedFacts})`);
  t.same(await accessibilityProblems(page), [], 'a failed payout: no serious or critical axe violation');

  await page.goto(`${origin}/dashboard/payouts/${paid.id}`);
  await facts.filter({ hasText: 'Paid at' }).waitFor();
  const paidFacts = (await facts.textContent())!;
  t.match(paidFacts, /Paid at\d{1,2} \w{3} \d{4}/, 'a paid payout says when');
  t.notMatch(paidFacts, /Delay|Expected by/, 'and no longer when it is expected');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await facts.filter({ hasText: 'Payé le' }).waitFor();
  t.pass('in French');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
