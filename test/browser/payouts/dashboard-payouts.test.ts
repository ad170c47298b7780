/**
 * The payout form in live (docs/dashboard.md, "Payouts"): a number this merchant never paid asks
 * for the user's second factor in the page before the payout goes (the API answered IKW-PAY-007);
 * a number paid before goes at once. Live payouts go to a connector that accepts them.
 */
import t from '#tap';
import { accessibilityProblems, navigate, PASSWORD, refusals, scriptProblems, signInWithPassword, startDashboard, withHeader } from '../../support/dashboard.js';
import { fund, liveOperator } from '../../support/payouts.js';
import { activateLive } from '../../support/system.js';
import { enableTotp, totpCode } from '../../support/accounts/second-factors.js';

const { svc, owner } = await startDashboard(t, { rails: liveOperator() });

t.test('live: a new number asks for the second factor, then the payout goes; the same number again goes at once', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Live payout shop');
  await fund(svc, merchant.id, 100_000, 'live');
  await activateLive(svc, merchant.id);
  const token = (await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body.accessToken as string;
  const { secret } = await enableTotp(svc, token, PASSWORD);
  svc.clock.advance(30_000);
  const refused = refusals(page);
  await page.goto(`${svc.baseUrl}/dashboard/payouts`);
  await signInWithPassword(page, email);
  await page.getByLabel('Security code').fill(await totpCode(secret, svc));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'New payout' }).waitFor();
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await navigate(page, 'Payouts');
  svc.clock.advance(30_000);

  const payTo = async (msisdn: string, amount: string) => {
    const form = page.getByRole('form', { name: 'New payout' });
    await form.getByLabel('Country').selectOption('SN');
    await form.getByLabel('Operator').selectOption('orange_money');
    await form.getByLabel('Mobile money number').fill(msisdn);
    await form.getByLabel(/Amount/).fill(amount);
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Confirm payout' }).click();
  };
  await payTo('+221771234599', '5000');
  const factor = page.getByRole('form', { name: 'Confirm with your second factor' });
  await factor.waitFor();
  t.same(await accessibilityProblems(page), [], 'the confirmation: no serious or critical axe violation');
  await factor.getByLabel('Security code').fill(await totpCode(secret, svc));
  await factor.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('status').filter({ hasText: 'Payout created' }).waitFor();
  const newPayoutLink = await page.getByRole('status').filter({ hasText: 'Payout created' }).getByRole('link').getAttribute('href');
  t.same(refused.splice(0), ['403 POST /api/v1/merchant/payouts'], 'the API asked for the second factor once');

  await payTo('+221771234599', '2000');
  await page.getByRole('row', { name: /2,000/ }).waitFor();
  t.notOk(await factor.isVisible(), 'a number paid before: no second factor');
  t.same(refused, [], 'nothing refused');

  const { secret: key } = await svc.apiKey(merchant.id, ['*'], 'live');
  const made = (await svc.request('GET', '/api/v1/merchant/payouts', { key })).body.data as { id: string; amount: number; livemode: boolean; destination: { msisdn: string } }[];
  t.match(
    made,
    [
      { amount: 2_000, livemode: true, destination: { msisdn: '+221771234599' } },
      { amount: 5_000, livemode: true },
    ],
    'both live payouts, newest first',
  );
  t.equal(newPayoutLink, `/dashboard/live/payouts/${made[1]!.id}`, 'the new payout’s id links to its page');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error (the refusal is counted above)');
});
