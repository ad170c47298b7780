/**
 * Passkeys in the dashboard, in Chromium with its virtual authenticator (WebAuthn over the DevTools
 * protocol: a platform authenticator that verifies its user, as a fingerprint reader would). The
 * service is served where PUBLIC_URL says (localhost), since a passkey is bound to that origin:
 * a passkey added in Settings (the enrolment challenge answered by the password); a sign-in whose
 * second factor is answered by it; a sign-in with the passkey alone; a guarded change (removing it)
 * confirmed with it; the prompt closed without a passkey said in words; axe-core, no CSP problem.
 */
import t from '#tap';
import { virtualAuthenticator } from '../../support/browser.js';
import { accessibilityProblems, PASSWORD, refusals, scriptProblems, signedInFrame, signInWithPassword, startDashboard, withHeader } from '../../support/dashboard.js';

const { svc, origin, signedIn } = await startDashboard(t, { publicOrigin: true });

t.test('a passkey added in Settings answers the second factor, signs in alone, and confirms its own removal', async (t) => {
  const { email, page, problems } = await signedIn(t, 'Passkey shop', '/settings/security');
  t.equal(new URL(page.url()).origin, origin, `served where PUBLIC_URL says (${origin})`);
  const authenticator = await virtualAuthenticator(page);
  const refused = refusals(page);
  await page.getByText('No passkey yet.').waitFor();

  // Added: a user with no second factor yet proves the enrolment with the password.
  const add = page.getByRole('form', { name: 'Add a passkey' });
  await add.getByLabel('Name of the passkey').fill('Work laptop');
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  const confirm = page.getByRole('form', { name: 'Confirm with your second factor' });
  await confirm.getByText('Your password again.').waitFor();
  await confirm.getByLabel('Security code').fill(PASSWORD);
  await confirm.getByRole('button', { name: 'Verify' }).click();
  await page
    .getByRole('textbox', { name: 'Name of the passkey: Work laptop' })
    .or(page.getByRole('button', { name: 'Remove: Work laptop' }))
    .first()
    .waitFor();
  t.equal(await authenticator.credentials(), 1, 'the authenticator holds the new credential');
  await page.getByRole('row', { name: /Passkey added/ }).waitFor();
  t.pass('the security events show it');
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
  t.match(login.body, { mfaRequired: true, factor: 'passkey' }, 'signing in now asks for the passkey');
  t.same(await accessibilityProblems(page), [], 'settings with a passkey: no serious or critical axe violation');

  // The password, then the passkey as the second factor.
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await signInWithPassword(page, email);
  const factor = page.getByRole('form', { name: 'Use your passkey' });
  await factor.waitFor();
  t.match(await page.getByText(/recovery codes/).textContent(), /recovery codes/, 'a recovery code is offered if the passkey is not at hand');
  t.same(await accessibilityProblems(page), [], 'the passkey step: no serious or critical axe violation');
  await factor.getByRole('button', { name: 'Use your passkey' }).click();
  await signedInFrame(page).waitFor();
  t.pass('signed in with the password and the passkey');

  // The passkey alone: it verifies its user, so it is both factors.
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await signedInFrame(page).waitFor();
  t.pass('signed in with the passkey alone');

  // Removing it is a guarded change, confirmed with the passkey itself.
  await page.goto(`${origin}/dashboard/settings/security`);
  await page.getByRole('button', { name: 'Remove: Work laptop' }).click();
  await confirm.getByRole('button', { name: 'Use your passkey' }).click();
  await page.getByText('No passkey yet.').waitFor();
  await page.getByRole('row', { name: /Passkey removed/ }).waitFor();
  const after = await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
  t.ok(after.body.accessToken, 'without it, the password alone signs in again');
  t.same(refused, [], 'no request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('a passkey prompt closed, or a device without the passkey, is said in words; the password still works', async (t) => {
  const { email, page, problems } = await signedIn(t, 'Passkey kiosk');
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  // A device with no passkey for this site: the browser answers NotAllowedError.
  await virtualAuthenticator(page);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  t.match(await page.getByRole('alert').textContent(), /The passkey was not used/, 'said, not a generic error');
  await signInWithPassword(page, email);
  await signedInFrame(page).waitFor();
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
