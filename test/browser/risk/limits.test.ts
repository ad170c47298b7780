/**
 * The Limits page (docs/dashboard.md, docs/limits.md), in Chromium: the risk team's limits and
 * holds set through the risk family's use cases (as the operator API calls them), a payment that
 * holds a reserve and a payout that counts against the day's cap; the page shows the maximum, the
 * cap with today's payouts and what is left, the freeze with its reason, the reserve with the
 * amount held and its release date; Payouts says the freeze above its form; a merchant with no
 * limit reads that in words; French; axe-core, 320 px, no CSP violation or script error.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { mobileMoney as payoutDestination, payout } from '../../support/payouts.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';

const { svc, signedIn } = await startDashboard(t, { clockStart: Date.now(), env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });
const RISK = { actor: 'operator:op_risk_1' };
const REASON = 'Refunds above the agreed rate, under review';

t.test('limits, a freeze and a reserve: each figure on the page, the freeze on Payouts too', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Maison Ndiaye');
  const refused = refusals(page);
  const owner = { merchantId: merchant.id, environment: 'sandbox' as const };
  const limits = svc.system.merchantLimits;
  await limits.setAmounts(owner, { transactionMaximums: { XOF: 500_000 }, dailyPayoutCaps: { xof: 200_000 } }, RISK);
  await limits.setReserve(owner, { percent: 10, days: 30 }, RISK);

  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const intent = await createIntent(svc, key, { amount: 100_000 });
  t.equal((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('00')) })).status, 200);
  await operatorAnswers(svc);
  await payout(svc, key, { amount: 20_000, currency: 'xof', destination: payoutDestination() });
  await limits.freezePayouts(owner, REASON, RISK);

  // What the API says the merchant holds: the page must show these figures.
  const api = (await svc.request('GET', '/api/v1/limits', { key })).body;
  const reserve = api.reservesHeld.totals.xof as number;
  t.ok(reserve > 0 && reserve <= 10_000, `a reserve of ${reserve} is held from the payment`);
  t.same(api.payoutsToday, { xof: 20_000 }, "today's payout counts against the cap");
  const releasesAt = new Date(api.reservesHeld.soonest[0].releasesAt);
  t.ok(Math.abs(releasesAt.getTime() - (svc.clock.now().getTime() + 30 * 86_400_000)) < 60_000, 'released 30 days after the payment');

  await navigate(page, 'Limits');
  await page.getByRole('heading', { name: 'Limits and holds', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/limits');
  const figure = (n: number) => n.toLocaleString('en-GB');

  const freeze = page.getByRole('region', { name: 'Payouts' });
  t.match(await freeze.textContent(), new RegExp(`Payouts are frozen by Sika’s risk team: ${REASON}\\..*Frozen since`), 'the freeze with its reason and date');

  // The section and its table's scrolling region are both named by the heading: the row is the page's only XOF row.
  const xof = page.getByRole('row', { name: /^XOF/ });
  const cells = (await xof.getByRole('cell').allTextContents()).map((c) => c.replace(/\s/g, ' '));
  t.match(cells, [new RegExp(figure(500_000)), new RegExp(figure(200_000)), new RegExp(figure(20_000)), new RegExp(figure(180_000))], 'the maximum, the cap, today’s payouts and what is left today');

  const reserveSection = page.getByRole('region', { name: 'Rolling reserve' });
  t.match(await reserveSection.textContent(), /10% of each payment’s net \(after fees\) is held in your reserved balance for 30 days/, 'the reserve in words');
  t.match(await reserveSection.getByRole('definition').textContent(), new RegExp(figure(reserve)), 'the total held');
  const held = page.getByRole('region', { name: 'Held now' }).getByRole('row', { name: new RegExp(intent.id) });
  t.match(await held.textContent(), new RegExp(figure(reserve)), "the payment's reserve");
  t.match(await held.textContent(), releasesAt.toLocaleDateString('en-GB', { dateStyle: 'medium' }), 'with its release date');
  t.equal(await held.getByRole('link', { name: intent.id }).getAttribute('href'), `/dashboard/payments/${intent.id}`, 'the payment links to its page');

  t.same(await accessibilityProblems(page), [], 'limits: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'limits');

  await navigate(page, 'Payouts');
  const notice = page.locator('.notice.payout-freeze');
  await notice.waitFor();
  t.match(await notice.textContent(), new RegExp(REASON), 'Payouts says the freeze and its reason above the form');
  await notice.getByRole('link', { name: 'See your limits and holds' }).click();
  await page.getByRole('heading', { name: 'Limits and holds', level: 1 }).waitFor();

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Limites et retenues', level: 1 }).waitFor();
  t.match(await page.getByRole('region', { name: 'Virements', exact: true }).textContent(), new RegExp(`Les virements sont gelés par l’équipe risques de Sika : ${REASON}`), 'in French');
  t.match(await page.getByRole('region', { name: 'Réserve glissante' }).textContent(), /10\s%\sdu net de chaque paiement/, 'the percentage as French writes it');
  t.match(await page.getByRole('region', { name: 'Retenu maintenant' }).textContent(), releasesAt.toLocaleDateString('fr-FR', { dateStyle: 'medium' }), 'the release date in French');
  t.same(await accessibilityProblems(page), [], 'in French: no serious or critical axe violation');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, [], 'no request refused');
});

t.test('a merchant without limits reads that in words; live has its own', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Atelier Sans Limite', '/limits');
  await page.getByRole('heading', { name: 'Limits and holds', level: 1 }).waitFor();
  await page.getByText('No limit or hold is set on your account in this environment').waitFor();
  t.equal(await page.getByRole('region', { name: 'Amounts' }).count(), 0, 'no table of limits that are not');

  // Live's limits are apart from sandbox's: a freeze in live shows in live only.
  await svc.system.merchantLimits.freezePayouts({ merchantId: merchant.id, environment: 'live' }, REASON, RISK);
  await page.reload();
  await page.getByText('No limit or hold is set on your account in this environment').waitFor();
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByRole('region', { name: 'Payouts' }).getByText(REASON, { exact: false }).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/live/limits', "live's limits at live's address");
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
