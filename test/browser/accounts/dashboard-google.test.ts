/**
 * Sign-in with Google in the dashboard, in Chromium, against a real OpenID provider on loopback
 * (`oidc-provider`, standing in for Google; its own login and consent pages). The service is served
 * where its PUBLIC_URL says, since Google sends the browser back there: the sign-in page offers
 * Google; a Google account whose verified address is a user's signs that user in; a user with an
 * authenticator app is asked for it after Google; a Google account no user holds is refused in the
 * API's words; in Settings a Google account is connected (the challenge answered by an e-mailed
 * code, the trip to Google and back) and disconnected, both in the security events; axe-core, no CSP problem.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { accessibilityProblems, PASSWORD, refusals, scriptProblems, signedInFrame, startDashboard } from '../../support/dashboard.js';
import { startTestGoogle } from '../../support/accounts/oidc.js';
import { enableTotp, totpCode } from '../../support/accounts/second-factors.js';
import { freePort } from '../../support/system.js';

const port = await freePort();
const google = await startTestGoogle(t, `http://localhost:${port}/api/v1/auth/google/callback`);
const { svc, origin, owner, signedIn } = await startDashboard(t, {
  publicOrigin: port,
  env: { GOOGLE_ISSUER: google.issuer, GOOGLE_CLIENT_ID: google.clientId, GOOGLE_CLIENT_SECRET: google.clientSecret },
});

/** At the provider's pages: signs in as `sub` and consents; the browser goes back to the service. */
async function atGoogle(page: Page, sub: string): Promise<void> {
  await page.locator('input[name="login"]').fill(sub);
  await page.locator('input[name="password"]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.origin === origin);
}

t.test('the sign-in page offers Google; a verified Google address signs its user in', async (t) => {
  const { email, page, problems } = await owner(t, 'Google shop');
  google.accounts.set('g-owner', { email: email.toUpperCase(), email_verified: true });
  await page.goto(`${origin}/dashboard/`);
  const refused = refusals(page);
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await atGoogle(page, 'g-owner');
  await signedInFrame(page).waitFor();
  t.equal(new URL(page.url()).hash, '', 'the one-time code is gone from the address');
  t.equal(await page.evaluate('sessionStorage.length'), 0, 'and the exchange key from the tab');
  t.same(refused, [], 'no request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('a user with an authenticator app gives its code after Google', async (t) => {
  const { email, page } = await owner(t, 'Careful shop');
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
  const { secret } = await enableTotp(svc, login.body.accessToken, PASSWORD);
  google.accounts.set('g-careful', { email, email_verified: true });
  await page.goto(`${origin}/dashboard/`);
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await atGoogle(page, 'g-careful');
  const factor = page.getByRole('form', { name: 'Confirm with your second factor' });
  await factor.waitFor();
  t.notOk(await signedInFrame(page).isVisible(), 'not signed in before the second factor');
  t.same(await accessibilityProblems(page), [], 'the second factor after Google: no serious or critical axe violation');
  svc.clock.advance(30_000);
  await factor.getByLabel('Security code').fill(await totpCode(secret, svc));
  await factor.getByRole('button', { name: 'Verify' }).click();
  await signedInFrame(page).waitFor();
  t.pass('signed in with Google and the app');
});

t.test('a Google account that no user holds is refused in the API’s words; the page without a trip says so', async (t) => {
  const { page } = await owner(t, 'Stranger shop');
  google.accounts.set('g-stranger', { email: 'nobody@elsewhere.example', email_verified: true });
  await page.goto(`${origin}/dashboard/`);
  const refused = refusals(page);
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await atGoogle(page, 'g-stranger');
  await page.getByRole('heading', { name: 'Sign-in with Google' }).waitFor();
  t.match(await page.getByRole('alert').textContent(), /No Sika account is connected to this Google account/, "the API's refusal (IKW-FED-006), in its words");
  t.match(refused, [/^403 POST \/api\/v1\/auth\/google\/exchange$/], 'refused by the exchange');
  refused.length = 0;

  await page.goto(`${origin}/dashboard/google`);
  t.match(await page.getByRole('alert').textContent(), /no trip to Google to finish|there is none to finish/, 'a visit without a trip to Google');
  t.same(refused, [], 'and nothing sent');
});

t.test('Settings: a Google account connected through Google and back, then disconnected', async (t) => {
  const { email, page, problems } = await signedIn(t, 'Connected shop', '/settings/security');
  // A user with no app or passkey answers these challenges with a code e-mailed to them.
  const emailedCode = async () => /\b(\d{6})\b/.exec((await svc.system.outbox.kept({ channel: 'email', recipient: email, purpose: 'mfa_code' }, 1))[0]?.text ?? '')?.[1] ?? '';
  google.accounts.set('g-connect', { email: 'awa.personal@gmail.example', email_verified: true });
  const refused = refusals(page);
  const section = page.getByRole('region', { name: 'Google account' });
  await section.getByText('No Google account').waitFor();
  await section.getByRole('button', { name: 'Connect a Google account' }).click();
  const confirm = section.getByRole('form', { name: 'Confirm with your second factor' });
  await confirm.getByText('The 6-digit code we just e-mailed you.').waitFor();
  await confirm.getByLabel('Security code').fill(await emailedCode());
  await confirm.getByRole('button', { name: 'Verify' }).click();
  await atGoogle(page, 'g-connect');
  await page.getByRole('status').filter({ hasText: 'Google account awa.personal@gmail.example connected.' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'back from Google: no serious or critical axe violation');
  await page.getByRole('link', { name: 'Back to Settings' }).click();
  await section.getByText(/sign in with the Google account awa\.personal@gmail\.example/).waitFor();
  await page.getByRole('row', { name: /Google account connected/ }).waitFor();
  t.pass('connected, and said in the security events');

  await section.getByRole('button', { name: 'Disconnect' }).click();
  await confirm.getByText('The 6-digit code we just e-mailed you.').waitFor();
  await confirm.getByLabel('Security code').fill(await emailedCode());
  await confirm.getByRole('button', { name: 'Verify' }).click();
  await section.getByText('No Google account').waitFor();
  await page.getByRole('row', { name: /Google account disconnected/ }).waitFor();
  t.same(refused, [], 'no request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
