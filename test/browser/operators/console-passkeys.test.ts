/**
 * An operator's passkey in the console (docs/operator.md, "Passkeys"), in Chromium with its virtual
 * authenticator (WebAuthn over the DevTools protocol). The service is served where PUBLIC_URL says,
 * since a passkey is bound to that origin: added on Your security behind a code of the app; the next
 * sign-in answered by it in place of the code; the prompt answered without it said in words;
 * removed, the sign-in asks for the code again. axe-core, 320 px, no CSP problem.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { virtualAuthenticator } from '../../support/browser.js';
import { consoleFrame, startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, scriptProblems, screenshot, withHeader } from '../../support/dashboard.js';
import { OPERATOR_PASSWORD, totpCode } from '../../support/operators.js';

const { svc, origin, operator } = await startConsole(t, { publicOrigin: true });

async function signInWithPassword(page: Page, email: string) {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

t.test('a passkey added behind the app signs in in place of the code, then is removed', async (t) => {
  const { page, problems, email, totpSecret } = await operator(t, 'finance');
  t.equal(new URL(page.url()).origin, origin, `served where PUBLIC_URL says (${origin})`);
  const authenticator = await virtualAuthenticator(page);
  await (await withHeader(page)).getByRole('link', { name: 'Your security' }).click();
  await page.getByText(/No passkey yet/).waitFor();

  const add = page.getByRole('form', { name: 'Add a passkey' });
  await add.getByLabel('Name of the passkey').fill('Work laptop');
  await add.getByLabel('Code from your authenticator app').fill('000000');
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  t.match(await add.getByRole('alert').textContent(), /code/i, 'a wrong code adds nothing, said in words');
  t.equal(await authenticator.credentials(), 0);
  svc.clock.advance(30_000);
  await add.getByLabel('Code from your authenticator app').fill(await totpCode(svc, totpSecret));
  await add.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('row', { name: /Work laptop/ }).waitFor();
  t.equal(await authenticator.credentials(), 1, 'the authenticator holds the new credential');
  t.same(await accessibilityProblems(page), [], 'Your security: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'console-security');

  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await signInWithPassword(page, email);
  await authenticator.away();
  await page.getByRole('button', { name: 'Use your passkey' }).click();
  t.match(await page.getByRole('alert').textContent(), /passkey was not used/, 'a prompt answered without the passkey is said in words');
  await authenticator.back();
  t.equal(await authenticator.credentials(), 1, 'the passkey is back on the device');
  await page.getByRole('button', { name: 'Use your passkey' }).click();
  await consoleFrame(page).waitFor();
  t.pass('signed in with the password and the passkey, no code');

  await (await withHeader(page)).getByRole('link', { name: 'Your security' }).click();
  t.match(await page.getByRole('row', { name: /Work laptop/ }).textContent(), /\d{4}/, 'its last use is shown');
  await page.getByRole('button', { name: 'Remove: Work laptop' }).click();
  await page.getByText(/No passkey yet/).waitFor();
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await signInWithPassword(page, email);
  await page.getByLabel('Code from the app').waitFor();
  t.equal(await page.getByRole('button', { name: 'Use your passkey' }).count(), 0, 'removed: the sign-in asks for the code alone');
  t.same(
    scriptProblems(problems).filter((p) => !/NotAllowedError|not allowed/i.test(p)),
    [],
    'no CSP violation or script error',
  );
});
