/**
 * Live is part of the dashboard's address (apps/dashboard/src/shell/router.ts, docs/dashboard.md):
 * /dashboard/live/… is live, kept by a reload and by a shared link opened signed out; a new
 * session starts in sandbox; the switch moves the page shown to the other environment's address.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { accessibilityProblems, navigate, signInWithPassword, startDashboard, withHeader } from '../support/dashboard.js';

const { svc, owner, signedIn } = await startDashboard(t);

/** The X-Environment of the next request the page makes to `path`, after `act`. */
async function environmentOfCall(page: Page, path: string, act: () => Promise<unknown>): Promise<string | undefined> {
  const asked = page.waitForRequest((r) => new URL(r.url()).pathname === path);
  await act();
  return (await asked).headers()['x-environment'];
}

t.test('a reload of a live page stays live; the switch, a new session and sign-out go to sandbox', async (t) => {
  const { email, page, problems } = await signedIn(t, 'Boutique Live');
  t.equal(new URL(page.url()).pathname, '/dashboard/', 'a new session starts at sandbox’s address');
  t.ok(await (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).isChecked(), 'and in sandbox');

  await navigate(page, 'Payments');
  t.equal(await environmentOfCall(page, '/api/v1/payment-intents', async () => (await withHeader(page)).getByRole('radio', { name: 'Live' }).check()), 'live', 'the switch asks live');
  t.equal(new URL(page.url()).pathname, '/dashboard/live/payments', 'the same page at live’s address');
  t.same(await accessibilityProblems(page), [], 'live payments: no serious or critical axe violation');

  t.equal(await environmentOfCall(page, '/api/v1/payment-intents', () => page.reload()), 'live', 'a reload asks live');
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  t.ok(await (await withHeader(page)).getByRole('radio', { name: 'Live' }).isChecked(), 'a reload of a live page stays live');
  t.notOk(await page.getByRole('status').filter({ hasText: 'Sandbox' }).isVisible(), 'no sandbox banner');

  await navigate(page, 'Payouts');
  t.equal(new URL(page.url()).pathname, '/dashboard/live/payouts', 'links keep live');
  await page.goBack();
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  t.ok(await (await withHeader(page)).getByRole('radio', { name: 'Live' }).isChecked(), 'back keeps live');

  t.equal(await environmentOfCall(page, '/api/v1/payment-intents', async () => (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).check()), 'sandbox', 'back to sandbox');
  t.equal(new URL(page.url()).pathname, '/dashboard/payments');
  await page.goBack();
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  t.ok(await (await withHeader(page)).getByRole('radio', { name: 'Live' }).isChecked(), 'back to before the switch is live again');
  t.equal(new URL(page.url()).pathname, '/dashboard/live/payments');

  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/payments', 'signed out: the address is sandbox’s');
  await signInWithPassword(page, email);
  await page.getByRole('heading', { name: 'Payments' }).waitFor();
  t.ok(await (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).isChecked(), 'the next session starts in sandbox');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('a shared link to a live page opens live after the sign-in', async (t) => {
  const { email, page, problems } = await owner(t, 'Boutique Lien');
  await page.goto(`${svc.baseUrl}/dashboard/live/payouts`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.equal(await environmentOfCall(page, '/api/v1/merchant/payouts', () => signInWithPassword(page, email)), 'live', 'the page asks live');
  await page.getByRole('heading', { name: 'Payouts', level: 1 }).waitFor();
  t.ok(await (await withHeader(page)).getByRole('radio', { name: 'Live' }).isChecked(), 'the switch says live');
  t.equal(new URL(page.url()).pathname, '/dashboard/live/payouts');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
