/**
 * Issue 65 §7 in Chromium: the payments list says how each payment was paid ("Orange Money ••4500")
 * under its description; the payouts list follows a payout on its way to paid while it stays open.
 */
import t from '#tap';
import { accessibilityProblems, navigate, startDashboard } from '../support/dashboard.js';
import { confirm, createIntent, mobileMoney as payerMoney, operatorAnswers, snNumber } from '../support/payments.js';
import { advance, fund, mobileMoney, payout } from '../support/payouts.js';
import { OPERATOR_DELAY_MS } from '../support/system.js';

const { svc, signedIn } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('the payments list names the method, operator and number; the payouts list refreshes a payout on its way', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Boutique Listes');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const paid = await createIntent(svc, key, { amount: 10_000, description: 'Basket of mangoes' });
  if ((await confirm(svc, key, paid.id, { payment_method: payerMoney(snNumber('00')) })).status !== 200) throw new Error('confirm failed');
  await operatorAnswers(svc);

  await navigate(page, 'Payments');
  const row = page.getByRole('region', { name: 'Payments' }).getByRole('row', { name: /Basket of mangoes/ });
  await row.waitFor();
  t.match(await row.getByRole('rowheader').textContent(), /^Basket of mangoesOrange Money ••4500$/, 'the description, then how it was paid');
  t.same(await accessibilityProblems(page), [], 'payments: no serious or critical axe violation');

  await fund(svc, merchant.id, 50_000);
  const made = await payout(svc, key, { amount: 10_000, destination: mobileMoney('41') });
  await navigate(page, 'Payouts');
  // Found by its recipient: a phone's two-line card names who and how much, the id being on the payout's page.
  const listed = page.getByRole('region', { name: 'Payouts' }).getByRole('row', { name: new RegExp(made.destination.msisdn.replace('+', '\\+')) });
  await listed.getByText('Pending').or(listed.getByText('In transit')).first().waitFor();
  await advance(svc);
  t.equal((await svc.request('GET', `/api/v1/merchant/payouts/${made.id}`, { key })).body.status, 'paid', 'the payout was paid meanwhile');
  await listed.getByText('Paid', { exact: true }).waitFor({ timeout: 15_000 });
  t.pass('the open list shows it paid, without a reload');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
