/**
 * The console's Held payouts (docs/operator.md, "Held payouts"), in Chromium: a risk operator sees
 * every merchant's payouts held for review in the sandbox, releases one (sent) and declines another
 * with a reason (failed, its money back on the merchant's available balance); a finance operator
 * has no such section. French, axe and 320 px.
 */
import t from '#tap';
import { consoleSections, openSection, startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, scriptProblems, withHeader } from '../../support/dashboard.js';
import { balance, fund, mobileMoney, payout } from '../../support/payouts.js';

const { svc, operator } = await startConsole(t);
const rulesOff = { payerPaymentsPerHour: null, payerPaymentsPerDay: null, payoutsPerDestinationPerDay: null, amountCeiling: null, repeatedPayment: null };

/** A sandbox merchant whose second payout to a destination in a day is held for review: its key and two held payouts. */
async function merchantWithHeldPayouts(name: string, lastTwo: string) {
  const { merchant, key } = await svc.sandboxMerchant(name);
  await fund(svc, merchant.id, 100_000);
  const rules = await svc.request('PUT', '/api/v1/risk/rules', { key, body: { ...rulesOff, payoutsPerDestinationPerDay: { limit: 1, action: 'review' } } });
  if (rules.status !== 200) throw new Error(rules.text);
  const destination = mobileMoney(lastTwo);
  await payout(svc, key, { amount: 1_000, destination });
  const held = [await payout(svc, key, { amount: 2_000, destination }), await payout(svc, key, { amount: 3_000, destination })];
  return { merchant, key, held: held.map((p) => p.id as string) };
}

t.test('a risk operator releases one held payout and declines another; finance has no such section', async (t) => {
  const shop = await merchantWithHeldPayouts('Boutique Retenue', '71');
  const { page, problems } = await operator(t, 'risk');
  await openSection(page, 'Held payouts');
  await page.getByRole('heading', { name: 'Held payouts', level: 1 }).waitFor();
  await page.getByText('No payout is held for review.').waitFor();
  t.pass('live holds none');
  await page.getByLabel('Environment').selectOption('sandbox');
  const [first, second] = shop.held as [string, string];
  const row = (id: string) => page.getByRole('row', { name: new RegExp(id) });
  await row(first).waitFor();
  t.match(await row(first).textContent(), new RegExp(`${shop.merchant.id}.*2,000`), 'the merchant and the amount');
  t.ok((await page.getByRole('row').allTextContents()).findIndex((r) => r.includes(first)) < (await page.getByRole('row').allTextContents()).findIndex((r) => r.includes(second)), 'oldest first');
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await page.setViewportSize({ width: 1280, height: 800 });

  const before = await balance(svc, shop.key);
  await page.getByRole('button', { name: `Release ${first}` }).click();
  await page.locator('main p[role="status"]', { hasText: `Payout ${first} released` }).waitFor();
  await row(first).waitFor({ state: 'detached' });
  t.equal((await svc.request('GET', `/api/v1/payouts/${first}`, { key: shop.key, headers: { 'x-environment': 'sandbox' } })).body.review_status, 'released', 'the API has it released');

  await page.getByRole('button', { name: `Decline ${second}` }).click();
  const form = page.getByRole('form', { name: `Decline payout ${second}` });
  await form.getByLabel('Reason, which the merchant reads (optional)').fill('Mule account');
  await form.getByRole('button', { name: 'Decline the payout' }).click();
  await page.locator('main p[role="status"]', { hasText: `Payout ${second} declined` }).waitFor();
  await page.getByText('No payout is held for review.').waitFor();
  const declined = (await svc.request('GET', `/api/v1/payouts/${second}`, { key: shop.key, headers: { 'x-environment': 'sandbox' } })).body;
  t.match(declined, { status: 'failed', review_status: 'declined', failure_code: 'declined_in_review', failure_message: 'Mule account' }, 'the API has it declined, with the reason');
  t.equal((await balance(svc, shop.key)).available, before.available + declined.amount + declined.fee, "its money back on the merchant's available balance");

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Virements retenus', level: 1 }).waitFor();
  await page.getByText('Aucun virement n’est retenu pour examen.').waitFor();
  t.pass('in French');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');

  const finance = await operator(t, 'finance');
  t.notOk((await consoleSections(finance.page)).includes('Held payouts'), 'finance has no Held payouts section');
});
