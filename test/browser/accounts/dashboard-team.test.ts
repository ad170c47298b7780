/**
 * The dashboard's team page (apps/dashboard/src/families/accounts/Team.tsx) in a real browser: an owner invites
 * a viewer, who opens the e-mailed link (read from the test SMTP server) on the invitation page,
 * joins with a password, signs in and sees the team read-only; the owner changes a member's role, removes one and requires a second
 * factor of owners; another merchant's member is refused; axe-core, 320 px, no console problems.
 */
import t from '#tap';
import { accessibilityProblems, navigate, PASSWORD, refusals, screenshot, scriptProblems, signedInFrame, signInWithPassword, startDashboard, withHeader } from '../../support/dashboard.js';
import { startSmtp, type Mail } from '../../support/webhooks.js';

const smtp = await startSmtp(t);
const { svc, owner, signedIn } = await startDashboard(t, { env: { SMTP_URL: smtp.url } });

function invitationToken(mails: Mail[], to: string): string {
  const mail = mails.filter((m) => m.to.includes(to)).at(-1);
  const token = mail && /(inv_[A-Za-z0-9_-]{43}\.[0-9a-f-]{36})/.exec(mail.raw.replace(/=\r?\n/g, ''))?.[1];
  if (!token) throw new Error(`no invitation mail to ${to}`);
  return token;
}

const login = async (email: string) => (await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body.accessToken as string;

t.test('an owner invites a viewer, who joins and sees the team read-only', async (t) => {
  const { email, page, problems } = await signedIn(t, 'Team shop', '/team');
  const refused = refusals(page);
  await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
  await page.getByRole('row', { name: new RegExp(email) }).waitFor();
  t.match(await page.getByRole('row', { name: new RegExp(email) }).textContent(), /Owner/, 'the owner is listed with the role');
  await page.getByText('No invitation yet.').waitFor();

  const invite = page.getByRole('form', { name: 'Invite' });
  await invite.getByLabel('E-mail address').fill('not-an-address@');
  await invite.getByRole('button', { name: 'Invite' }).click();
  t.ok(await invite.getByLabel('E-mail address').evaluate((i) => !(i as unknown as { validity: { valid: boolean } }).validity.valid), 'a malformed address is not sent');

  await invite.getByLabel('E-mail address').fill('viewer@team-shop.example');
  await invite.getByLabel('Role').selectOption({ label: 'Viewer' });
  await invite.getByRole('button', { name: 'Invite' }).click();
  await page.getByRole('status').filter({ hasText: 'Invitation sent to viewer@team-shop.example.' }).waitFor();
  const row = page.getByRole('row', { name: /viewer@team-shop\.example/ });
  await row.waitFor();
  t.match(await row.textContent(), /Viewer.*Pending/, 'the invitation is listed, pending');

  await invite.getByLabel('E-mail address').fill('viewer@team-shop.example');
  await invite.getByRole('button', { name: 'Invite' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /invitation|member/i })
    .waitFor();
  t.pass("a second invitation to the same address: the API's refusal shown");

  t.same(await accessibilityProblems(page), [], 'team: no serious or critical axe violation');
  await page.setViewportSize({ width: 320, height: 640 });
  t.ok(await page.evaluate('document.documentElement.scrollWidth <= 320'), 'no horizontal scroll at 320 px');
  await page.setViewportSize({ width: 360, height: 740 });

  // The viewer opens the e-mailed link, signed out.
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const token = invitationToken(smtp.mails, 'viewer@team-shop.example');
  t.ok(
    smtp.mails.some((m) => m.raw.replace(/=\r?\n/g, '').includes(`/dashboard/invitation?token=3D${token}`) || m.raw.includes(`/dashboard/invitation?token=${token}`)),
    "the e-mail's link is the dashboard's invitation page",
  );
  await page.goto(`${svc.baseUrl}/dashboard/invitation?token=${encodeURIComponent(token)}`);
  await page.getByRole('heading', { name: 'Join a team on Sika' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'the invitation page: no serious or critical axe violation');
  await page.getByRole('button', { name: 'Accept the invitation' }).click();
  await page.getByRole('alert').waitFor();
  t.match(await page.getByRole('alert').textContent(), /could not be accepted: .*password/i, "a newcomer without a password: the API's refusal shown");
  await page.getByLabel('Your name').fill('Vera Viewer');
  await page.getByLabel('Choose a password (8 characters or more)').fill(PASSWORD);
  await page.getByRole('button', { name: 'Accept the invitation' }).click();
  await signedInFrame(page).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/', 'signed in, the token gone from the address');
  t.notOk(page.url().includes('token'));

  // Signed out and in again with the new account's password.
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await signInWithPassword(page, 'viewer@team-shop.example');
  await signedInFrame(page).waitFor();
  await navigate(page, 'Team');
  await page.getByText('You are Viewer: only owners and admins change the team. This is a read-only view.').waitFor();
  await page.getByRole('row', { name: /Vera Viewer/ }).waitFor();
  t.match(
    await page
      .getByRole('row', { name: /viewer@team-shop\.example/ })
      .last()
      .textContent(),
    /Accepted/,
    'the invitation is accepted',
  );
  t.equal(await page.getByRole('button', { name: /Save role|Remove|Revoke|Invite/ }).count(), 0, 'no control to change the team');
  t.equal(await page.getByRole('combobox').filter({ hasText: 'Owner' }).count(), 0, 'no role to pick');
  await page.getByText('Owners are not required to keep a second factor.').waitFor();
  t.same(await accessibilityProblems(page), [], 'the read-only view: no serious or critical axe violation');

  const viewerToken = await login('viewer@team-shop.example');
  const members = await svc.request('GET', '/api/v1/merchant/team/members', { key: viewerToken });
  const ownerId = (members.body.data as { email: string; user_id: string }[]).find((m) => m.email === email)!.user_id;
  t.match(await svc.request('PATCH', `/api/v1/merchant/team/members/${ownerId}`, { key: viewerToken, body: { role: 'viewer' } }), { status: 403, body: { code: 'IKW-ACC-002' } }, 'the API refuses a viewer a role change too');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['409 POST /api/v1/merchant/team/invitations', '400 POST /api/v1/invitations/accept'], 'no refused request but the second invitation and the acceptance without a password');
});

t.test('an owner changes a role, removes a member and requires a second factor; another merchant’s member is refused', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Busy shop');
  const refused = refusals(page);
  await svc.member(merchant, 'dev@busy-shop.example', PASSWORD, 'developer');
  await svc.member(merchant, 'fin@busy-shop.example', PASSWORD, 'finance');
  await page.goto(`${svc.baseUrl}/dashboard/team`);
  await signInWithPassword(page, email);
  await page.getByRole('row', { name: /dev@busy-shop\.example/ }).waitFor();

  await page.getByLabel('Role of dev').selectOption({ label: 'Admin' });
  await page.getByRole('button', { name: 'Save role: dev' }).click();
  await page
    .getByRole('row', { name: /dev@busy-shop\.example/ })
    .filter({ hasText: 'Admin' })
    .waitFor();
  const token = await login(email);
  const listed = async () => (await svc.request('GET', '/api/v1/merchant/team/members', { key: token })).body.data as { email: string; role: string; user_id: string }[];
  t.equal((await listed()).find((m) => m.email === 'dev@busy-shop.example')?.role, 'admin', 'the API holds the new role');

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Remove: fin' }).click();
  await page.getByRole('row', { name: /fin@busy-shop\.example/ }).waitFor({ state: 'detached' });
  t.notOk(
    (await listed()).some((m) => m.email === 'fin@busy-shop.example'),
    'the member is gone from the API',
  );

  const requirement = page.getByRole('checkbox', { name: 'Require a second factor of owners' });
  t.notOk(await requirement.isChecked());
  await requirement.check();
  await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  t.match((await svc.request('GET', '/api/v1/merchant/team/settings', { key: token })).body, { require_mfa: true }, 'the organization requires a second factor');
  await page.reload();
  await page.getByRole('checkbox', { name: 'Require a second factor of owners' }).waitFor();
  t.ok(await page.getByRole('checkbox', { name: 'Require a second factor of owners' }).isChecked(), 'and the page reads it back');

  // The owner cannot demote the last owner: the API's refusal is shown.
  await page.getByLabel(`Role of ${email.split('@')[0]}`).selectOption({ label: 'Viewer' });
  await page.getByRole('button', { name: `Save role: ${email.split('@')[0]}` }).click();
  await page.getByRole('alert').waitFor();
  t.match(await page.getByRole('alert').textContent(), /\w/, "the API's refusal text");
  t.equal((await listed()).find((m) => m.email === email)?.role, 'owner', 'still the owner');

  const other = await svc.merchant('Other shop');
  await svc.member(other, 'someone@other-shop.example', PASSWORD, 'developer');
  const otherToken = await login('someone@other-shop.example');
  const stranger = ((await svc.request('GET', '/api/v1/merchant/team/members', { key: otherToken })).body.data as { user_id: string }[])[0]!.user_id;
  t.match(await svc.request('PATCH', `/api/v1/merchant/team/members/${stranger}`, { key: token, body: { role: 'viewer' } }), { status: 404 }, "another merchant's member: not found");
  t.match(await svc.request('DELETE', `/api/v1/merchant/team/members/${stranger}`, { key: token }), { status: 404 }, 'nor removed');
  await screenshot(page, 'team');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.match(refused, [/^4\d\d PATCH \/api\/v1\/merchant\/team\/members\//], 'no refused request but the last owner kept');
  t.equal(refused.length, 1);
});
