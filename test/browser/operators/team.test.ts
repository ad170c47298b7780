/**
 * The console's Team section (docs/operator.md, "The team"), in Chromium: an admin invites a
 * reviewer, who joins from the e-mailed link on their own browser and sees a reviewer's sections;
 * the admin sees them active, changes their role and deactivates them (after a confirmation), and
 * their session ends under their page; the last admin cannot be deactivated nor lose the role, in
 * words; a role other than admin gets no Team section, nor its actions by the page's address.
 * French, axe and 320 px.
 */
import type { Page } from 'playwright-core';
import t from '#tap';
import { openPage, startBrowser } from '../../support/browser.js';
import { consoleSections, invitationLink, joinFromInvitation, openSection, startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, screenshot, scriptProblems, withHeader } from '../../support/dashboard.js';

const { svc, operator } = await startConsole(t);

/** The team as the API answers it to the admin's page (its cookie). */
const teamAsApiSays = (page: Page) => page.evaluate(() => fetch('/api/v1/operator/team', { headers: { 'Sika-Operator-Cookie': '1' } }).then((r) => r.json())) as Promise<{ data: { email: string; role: string; status: string }[] }>;

t.test('an admin invites a reviewer, who joins; the admin changes their role and deactivates them; the last admin stays', async (t) => {
  const admin = await operator(t, 'admin');
  const { page } = admin;
  await openSection(page, 'Team');
  await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();

  const invite = page.getByRole('form', { name: 'Invite an operator' });
  await invite.getByLabel('Name').fill('Rita Reviewer');
  await invite.getByLabel('E-mail address').fill('rita@ops.example');
  await invite.getByLabel('Role').selectOption('reviewer');
  await invite.getByRole('button', { name: 'Invite' }).click();
  t.match(await page.locator('main p[role="status"]').textContent(), /Invitation e-mailed to rita@ops\.example as Reviewer/, 'the invitation is said in words');
  const rita = page.getByRole('row', { name: /Rita Reviewer/ });
  t.match(await rita.textContent(), /rita@ops\.example.*Reviewer.*Invited.*None yet/, 'listed as invited, without a second factor yet');

  // Rita opens the e-mailed link on her own computer (a browser of her own: its own cookies).
  const hers = await openPage(await startBrowser(t));
  await joinFromInvitation(svc, hers.page, await invitationLink(svc, 'rita@ops.example'));
  t.match(await hers.page.locator('header .who').textContent(), /rita@ops\.example · Reviewer/, 'the reviewer is signed in');
  t.same(await consoleSections(hers.page), ['Review queue', 'Merchants', 'Rails', 'Risk rules'], "and sees a reviewer's sections");

  await page.reload();
  await rita.waitFor();
  t.match(await rita.textContent(), /Reviewer.*Active.*App added/, "the admin's list shows her active, with her app");

  await rita.getByLabel('Role of Rita Reviewer').selectOption('risk');
  await rita.getByRole('button', { name: 'Change role: Rita Reviewer' }).click();
  t.match(await page.locator('main p[role="status"]').textContent(), /Rita Reviewer is now Risk/);
  t.match(
    (await teamAsApiSays(page)).data.find((o) => o.email === 'rita@ops.example'),
    { role: 'risk', status: 'active' },
    'the API has her as risk',
  );

  await invite.getByLabel('Name').fill('Rita Again');
  await invite.getByLabel('E-mail address').fill('rita@ops.example');
  await invite.getByRole('button', { name: 'Invite' }).click();
  await page.getByRole('alert').filter({ hasText: 'An active operator holds this e-mail address already' }).waitFor();
  t.pass('an address an active operator holds is refused in words');

  // A second invitation stays invited: every status is on the list.
  await invite.getByLabel('Name').fill('Fred Finance');
  await invite.getByLabel('E-mail address').fill('fred@ops.example');
  await invite.getByLabel('Role').selectOption('finance');
  await invite.getByRole('button', { name: 'Invite' }).click();
  await page.getByRole('row', { name: /Fred Finance/ }).waitFor();

  await rita.getByRole('button', { name: 'Deactivate: Rita Reviewer' }).click();
  const confirmation = rita.getByRole('group', { name: 'Deactivate' });
  t.match(await confirmation.textContent(), /Deactivate Rita Reviewer\? They can no longer sign in/, 'a confirmation is asked first');
  t.match(
    (await teamAsApiSays(page)).data.find((o) => o.email === 'rita@ops.example'),
    { status: 'active' },
    'nothing changed yet',
  );
  await confirmation.getByRole('button', { name: 'Yes, deactivate' }).click();
  await page.locator('main p[role="status"]', { hasText: 'Rita Reviewer is deactivated' }).waitFor();
  await rita.filter({ hasText: 'Deactivated' }).waitFor();
  t.equal(await rita.getByRole('button').count(), 0, 'a deactivated operator has no actions left');

  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'console-team');

  // Her page's next call finds her session ended: the console signs her out.
  await openSection(hers.page, 'Rails');
  await hers.page.getByRole('heading', { name: 'Operator sign-in' }).waitFor();
  t.match(await hers.page.getByRole('alert').textContent(), /Your session ended/, 'she is told her session ended');
  await hers.page.reload();
  await hers.page.getByRole('heading', { name: 'Operator sign-in' }).waitFor();
  t.pass('a reload shows the sign-in page');

  // The admin is the last one: neither deactivated nor given another role.
  const self = page.getByRole('row', { name: new RegExp(admin.email) });
  await self.getByRole('button', { name: /^Deactivate: / }).click();
  const refused = (path: string) => page.waitForResponse((r) => r.url().endsWith(path) && r.status() === 409);
  let answered = refused('/deactivate');
  await self.getByRole('button', { name: 'Yes, deactivate' }).click();
  await answered;
  const refusal = page.getByRole('alert').filter({ hasText: 'This is the last active admin: make another operator admin first' });
  await refusal.waitFor();
  t.pass('deactivating the last admin is refused in words');
  await self.getByLabel(/^Role of /).selectOption('finance');
  answered = refused('/role');
  await self.getByRole('button', { name: /^Change role: / }).click();
  await answered;
  // The first refusal was cleared when the second call was sent: this one is the role's.
  await refusal.waitFor();
  t.pass('so is giving them another role');
  t.match(
    (await teamAsApiSays(page)).data.find((o) => o.email === admin.email),
    { role: 'admin', status: 'active' },
  );

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Équipe', level: 1 }).waitFor();
  t.ok(await page.getByRole('form', { name: 'Inviter un opérateur' }).isVisible(), 'the invitation form in French');
  t.match(await rita.textContent(), /Désactivé/, 'the statuses in French');
  t.same(await accessibilityProblems(page), [], 'in French too: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'in French too: no horizontal scroll at 320 px');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');

  t.same(scriptProblems(admin.problems), [], "the admin's page: no CSP violation or script error");
  t.same(scriptProblems(hers.problems), [], "the reviewer's page: no CSP violation or script error");
});

t.test('a role other than admin has no Team section, and the page by its address offers nothing', async (t) => {
  const { page, problems } = await operator(t, 'finance');
  t.notOk((await consoleSections(page)).includes('Team'), 'no Team in the navigation');
  await page.goto(`${svc.baseUrl}/console/team`);
  await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
  t.match(await page.getByRole('note').textContent(), /This page is for another role\. Your role: Finance/, 'it says the page is for another role');
  t.equal(await page.locator('main form, main button, main table').count(), 0, 'no invitation, no list, no action');
  t.same(await accessibilityProblems(page), []);
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
