/**
 * The console's door (docs/operator.md, "Signing in"), in Chromium: an invited operator chooses a
 * password and adds an authenticator app from the link's page, and only then has a session; later
 * sign-ins ask for the app's code after the password; a wrong code is refused in words; each role
 * sees the sections it may use; sign-out ends the session; French; axe and 320 px.
 */
import t from '#tap';
import { consoleFrame, consoleSections, startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, screenshot, withHeader } from '../../support/dashboard.js';
import { OPERATOR_PASSWORD, totpCode } from '../../support/operators.js';

const { svc, operator, freshPage } = await startConsole(t);

t.test('an invited admin joins from the link, signs out, and signs in again with the code', async (t) => {
  const admin = await operator(t, 'admin');
  const { page } = admin;
  t.equal(new URL(page.url()).pathname, '/console/', "the invitation's page leads to the console's home");
  t.notOk(new URL(page.url()).search.includes('token'), 'the token is not left in the address');
  t.same(await consoleSections(page), ['Review queue', 'Merchants', 'Rails', 'Reconciliation', 'Held payouts', 'Risk rules', 'Team'], 'an admin sees every section');
  t.match(await page.locator('header .who').textContent(), new RegExp(`${admin.email} · Admin`));
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');

  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Operator sign-in' }).waitFor();
  const me = await page.evaluate(() => fetch('/api/v1/operator/me', { headers: { 'Sika-Operator-Cookie': '1' } }).then((r) => r.status));
  t.equal(me, 404, 'signed out, the cookie opens nothing: the operator routes are hidden again');

  await page.getByLabel('E-mail address').fill(admin.email);
  await page.getByLabel('Password', { exact: true }).fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('Code from the app').fill('000000');
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  t.match(await page.getByRole('alert').textContent(), /code/i, 'a wrong code is refused in words');
  t.equal(await consoleFrame(page).count(), 0, 'and opens no session');
  svc.clock.advance(30_000);
  await page.getByLabel('Code from the app').fill(await totpCode(svc, admin.totpSecret));
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await consoleFrame(page).waitFor();
  await page.reload();
  await consoleFrame(page).waitFor();
  t.pass('a reload keeps the session (the HttpOnly cookie)');
  await screenshot(page, 'console-home');
  t.same(
    admin.problems.filter((p) => !p.startsWith('Failed to load resource')),
    [],
    'no CSP violation or script error',
  );
});

t.test('each role sees its sections', async (t) => {
  const finance = await operator(t, 'finance');
  t.same(await consoleSections(finance.page), ['Merchants', 'Rails', 'Reconciliation', 'Risk rules'], 'finance: no review queue, no held payouts, no team');
  const reviewer = await operator(t, 'reviewer');
  t.same(await consoleSections(reviewer.page), ['Review queue', 'Merchants', 'Rails', 'Risk rules'], 'a reviewer');
  const risk = await operator(t, 'risk');
  t.same(await consoleSections(risk.page), ['Review queue', 'Merchants', 'Rails', 'Held payouts', 'Risk rules'], 'risk');
});

t.test('the sign-in page in French, and an invitation link without its token', async (t) => {
  const { page } = await freshPage(t);
  await page.goto(`${svc.baseUrl}/console/`);
  await page.getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Connexion opérateur' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'the sign-in page: no serious or critical axe violation');
  await page.getByLabel('Langue').selectOption('en');
  await page.goto(`${svc.baseUrl}/console/invitation`);
  t.match(await page.getByRole('alert').textContent(), /no invitation in it/, 'a link without its token says what to do');
  await page.goto(`${svc.baseUrl}/console/invitation?token=oi_unknown`);
  await page.getByLabel('New password').fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  t.match(await page.getByRole('alert').textContent(), /invitation/i, 'an unknown token is refused in words');
});
