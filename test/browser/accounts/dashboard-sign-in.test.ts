/**
 * The dashboard's signed-out pages in Chromium (apps/dashboard/src/families/accounts/SignUp.tsx,
 * PasswordReset.tsx, MagicLink.tsx, EmailChange.tsx): a newcomer signs up with the code e-mailed
 * to the address (a wrong code refused first) and is signed in to a new merchant; a forgotten
 * password is reset from the e-mailed link (the link works once, the old password no longer); a
 * sign-in link signs in, and asks the authenticator app first when the account has one. The
 * messages are read from the service's outbox. axe-core and 320 px on each page.
 */
import t from '#tap';
import { accessibilityProblems, overflowAt, PASSWORD, refusals, screenshot, scriptProblems, signedInFrame, startDashboard, withHeader } from '../../support/dashboard.js';
import { enableTotp, totpCode } from '../../support/accounts/second-factors.js';

const { svc, owner } = await startDashboard(t);
const latest = async (recipient: string, purpose: string) => (await svc.system.outbox.kept({ channel: 'email', recipient, purpose }, 1))[0]?.text ?? '';
const login = (email: string, password: string) => svc.request('POST', '/api/v1/auth/login', { body: { email, password } });

t.test('sign up: the address proved by its code, then the account and its merchant, signed in', async (t) => {
  const { page, problems } = await owner(t, 'Nobody yet');
  const refused = refusals(page);
  await page.goto(`${svc.baseUrl}/dashboard/`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByRole('heading', { name: 'Create your account', level: 1 }).waitFor();
  t.same(await accessibilityProblems(page), [], 'sign-up: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await page.getByLabel('Your e-mail address').fill('awa@nouvelle-boutique.example');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByText(/a 6-digit code is on its way/).waitFor();
  const code = /code is (\d{6})/.exec(await latest('awa@nouvelle-boutique.example', 'signup_code'))![1]!;
  await page.getByLabel('Code from the e-mail').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Check the code' }).click();
  await page.getByRole('alert').waitFor();
  await page.getByLabel('Code from the e-mail').fill(code);
  await page.getByRole('button', { name: 'Check the code' }).click();
  await page.getByText('awa@nouvelle-boutique.example is checked.').waitFor();
  t.equal(await page.getByLabel('Your name').inputValue(), '', 'the code is not left in “Your name”');
  t.notMatch(await page.locator('#sign-up-country-help').textContent(), /Two letters/, 'the country is a list: its help asks for no letters');
  await page.getByLabel('Your name').fill('Awa Ndiaye');
  await page.getByLabel('Name of your business').fill('Nouvelle Boutique');
  await page.getByLabel('Password (8 characters or more)').fill('a good long password');
  await screenshot(page, 'sign-up');
  await page.getByRole('button', { name: 'Create the account' }).click();
  await signedInFrame(page).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/', 'signed in, on the home page');
  const checklist = page.getByRole('region', { name: 'Get ready to go live' });
  await checklist.waitFor();
  t.match(await checklist.getByRole('listitem').filter({ hasText: 'Confirm your e-mail address' }).textContent(), /^Done/, 'the address proved at sign-up counts');
  t.equal(await checklist.getByRole('link', { name: 'Do it: Register a webhook endpoint' }).getAttribute('href'), '/dashboard/webhooks', 'each step to do links to its page');
  t.same(await accessibilityProblems(page), [], 'home with the checklist: no serious or critical axe violation');
  await screenshot(page, 'onboarding');
  await checklist.getByRole('button', { name: 'Hide this checklist' }).click();
  await checklist.waitFor({ state: 'detached' });
  await page.reload();
  await page.getByRole('heading', { name: 'Balances' }).waitFor();
  t.equal(await checklist.count(), 0, 'hidden for good');
  const signedIn = await login('awa@nouvelle-boutique.example', 'a good long password');
  t.equal(signedIn.status, 200, 'the account signs in with its password');
  t.match((await svc.request('GET', '/api/v1/organizations/current', { key: signedIn.body.accessToken })).body, { displayName: 'Nouvelle Boutique', country: 'SN', role: 'owner' }, 'its organization, owned by the newcomer');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 POST /api/v1/auth/pre-signup/email/verify'], 'no refused request but the wrong code');
});

t.test('forgot password: the e-mailed link sets a new one, once; the old one no longer signs in', async (t) => {
  const { email, page, problems } = await owner(t, 'Forgetful shop');
  const refused = refusals(page);
  await page.goto(`${svc.baseUrl}/dashboard/`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByLabel('Your e-mail address').fill(email);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByText(`If ${email} has an account, the link is on its way.`).waitFor();
  t.same(await accessibilityProblems(page), [], 'forgot password: no serious or critical axe violation');
  const link = /(http\S+\/dashboard\/reset-password\?token=\S+)/.exec(await latest(email, 'password_reset'))![1]!;
  const path = `${new URL(link).pathname}${new URL(link).search}`;
  await page.goto(`${svc.baseUrl}${path}`);
  await page.getByLabel('New password (8 characters or more)').fill('a brand new password');
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await page.getByText(/Your password is changed/).waitFor();
  t.notMatch(page.url(), /token=/, 'the spent token leaves the address bar');
  t.equal((await login(email, 'a brand new password')).status, 200, 'the new password signs in');
  t.equal((await login(email, PASSWORD)).status, 401, 'the old one no longer');
  await page.goto(`${svc.baseUrl}${path}`);
  await page.getByLabel('New password (8 characters or more)').fill('yet another password');
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await page.getByRole('alert').waitFor();
  t.equal((await login(email, 'a brand new password')).status, 200, 'the link works once');
  await page.getByRole('link', { name: 'Back to sign-in' }).click();
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 POST /api/v1/auth/reset-password'], 'no refused request but the spent link');
});

t.test('the checklist confirms the e-mail address with a code; it leaves once every step is done or it is hidden', async (t) => {
  const { email, page, problems } = await owner(t, 'Checklist shop');
  await page.goto(`${svc.baseUrl}/dashboard/`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const checklist = page.getByRole('region', { name: 'Get ready to go live' });
  const step = checklist.getByRole('listitem').filter({ hasText: 'Confirm your e-mail address' });
  await step.getByRole('button', { name: 'E-mail me a code' }).click();
  await step.getByLabel('Code from the e-mail').waitFor();
  const code = /confirm this address is (\d{6})/.exec(await latest(email, 'mfa_code'))![1]!;
  await step.getByLabel('Code from the e-mail').fill(code);
  await step.getByRole('button', { name: 'Confirm' }).click();
  await step.filter({ hasText: /^Done/ }).waitFor();
  const token = (await login(email, PASSWORD)).body.accessToken as string;
  t.match((await svc.request('GET', '/api/v1/auth/mfa', { key: token })).body, { emailVerified: true }, 'the API holds the address as proved');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('a sign-in link signs in; with an authenticator app, its code is asked first', async (t) => {
  const { email, page, problems } = await owner(t, 'Linked shop');
  await page.goto(`${svc.baseUrl}/dashboard/`);
  await page.getByRole('link', { name: 'E-mail me a sign-in link' }).click();
  await page.getByLabel('Your e-mail address').fill(email);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByText(`If ${email} has an account, the link is on its way.`).waitFor();
  t.same(await accessibilityProblems(page), [], 'sign-in link: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'magic-link');
  const linkPath = async () => {
    const link = new URL(/(http\S+\/dashboard\/magic-link\?token=\S+)/.exec(await latest(email, 'magic_link'))![1]!);
    return `${link.pathname}${link.search}`;
  };
  await page.goto(`${svc.baseUrl}${await linkPath()}`);
  await signedInFrame(page).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/', 'signed in, the token gone from the address');
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();

  const token = (await login(email, PASSWORD)).body.accessToken as string;
  const { secret } = await enableTotp(svc, token, PASSWORD);
  svc.clock.advance(30_000);
  await svc.request('POST', '/api/v1/auth/magic-link', { body: { email } });
  await page.goto(`${svc.baseUrl}${await linkPath()}`);
  await page.getByLabel('Security code').fill(await totpCode(secret, svc));
  await page.getByRole('button', { name: 'Verify' }).click();
  await signedInFrame(page).waitFor();
  t.pass('the link, then the app’s code');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
