/**
 * The service's decisions on a payment's and a payout's own page (docs/risk.md, "Decisions";
 * docs/dashboard.md), in Chromium: a payout a review rule held shows the rule's reason; a payment a
 * rule blocked shows why, in the API's words; a payment no rule matched shows only its rail, and
 * one never confirmed "No decisions."; French; axe-core, 320 px; no CSP violation or script error.
 */
import t from '#tap';
import { accessibilityProblems, overflowAt, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { confirm, createIntent, mobileMoney as payWith, snNumber } from '../../support/payments.js';
import { fund, mobileMoney as payTo, payout } from '../../support/payouts.js';

const { svc, signedIn, origin } = await startDashboard(t);
const rulesOff = { payerPaymentsPerHour: null, payerPaymentsPerDay: null, payoutsPerDestinationPerDay: null, amountCeiling: null, repeatedPayment: null };

t.test('a held payout and a blocked payment say why on their pages; a plain payment shows no rule', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Décisions');
  await fund(svc, merchant.id, 100_000);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const rules = await svc.request('PUT', '/api/v1/risk/rules', {
    key,
    body: { ...rulesOff, payoutsPerDestinationPerDay: { limit: 1, action: 'review' }, payerPaymentsPerHour: { limit: 1, action: 'block' } },
  });
  t.equal(rules.status, 200, rules.text);

  const destination = payTo('82');
  await payout(svc, key, { amount: 1_000, destination });
  const held = await payout(svc, key, { amount: 2_000, destination });
  t.equal(held.review_status, 'held', 'held by the review rule');

  const plain = await createIntent(svc, key, { amount: 3_000 });
  t.equal((await confirm(svc, key, plain.id, { payment_method: payWith(snNumber('83')) })).status, 200, 'the first attempt passes');
  const blocked = await createIntent(svc, key, { amount: 4_000 });
  const refused = await confirm(svc, key, blocked.id, { payment_method: payWith(snNumber('83')) });
  t.match(refused.body, { code: 'IKW-LIM-007' }, 'the second attempt in the hour is blocked');
  const unconfirmed = await createIntent(svc, key, { amount: 5_000 });
  // The decisions read model follows the log.
  await svc.system.drain();

  await page.goto(`${origin}/dashboard/payouts/${held.id}`);
  const payoutDecisions = page.locator('section[aria-labelledby="payout-decisions"]');
  const review = payoutDecisions.getByRole('row').filter({ hasText: 'Risk rules' });
  await review.waitFor();
  const reviewText = await review.textContent();
  t.match(reviewText, /decision: review/, 'the outcome: held for review');
  t.match(reviewText, /1 payouts went to this destination in the last 24 hours \(the rule allows 1\)/, "the rule's reason");
  t.match(await payoutDecisions.textContent(), /Payout routing/, 'beside its other decisions');
  t.same(await accessibilityProblems(page), [], 'payout: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'payout: no horizontal scroll at 320 px');

  await page.goto(`${origin}/dashboard/payments/${blocked.id}`);
  const paymentDecisions = page.locator('section[aria-labelledby="payment-decisions"]');
  const block = paymentDecisions.getByRole('row').filter({ hasText: 'Risk rules' });
  await block.waitFor();
  t.match(await block.textContent(), /decision: block.*Declined by the risk rules before any rail was asked: .*1 payment attempts? in the last hour \(the rule allows 1\)/, 'why it was declined, in the API’s words');
  t.same(await accessibilityProblems(page), [], 'payment: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'payment: no horizontal scroll at 320 px');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await paymentDecisions.getByRole('heading', { name: 'Décisions' }).waitFor();
  await paymentDecisions.getByRole('columnheader', { name: 'Pourquoi' }).waitFor();
  t.match(await paymentDecisions.textContent(), /Règles de risque/, 'in French');
  t.same(await accessibilityProblems(page), [], 'in French: no serious or critical axe violation');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');

  await page.goto(`${origin}/dashboard/payments/${plain.id}`);
  await paymentDecisions.getByRole('row').filter({ hasText: 'Payment routing' }).waitFor();
  t.notMatch(await paymentDecisions.textContent(), /Risk rules/, 'a payment no rule matched: only its rail');

  await page.goto(`${origin}/dashboard/payments/${unconfirmed.id}`);
  await paymentDecisions.getByText('No decisions.').waitFor();
  t.pass('a payment never confirmed: no decisions');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
