/**
 * Invitations (docs/accounts.md, "Team"): owners and admins invite by e-mail with a role, list and
 * revoke; `POST /api/v1/invitations/accept` joins, creating the account when needed. The mail
 * shows the organization's name quoted and labelled; invitations are limited per organization and
 * per inviter a day, and a user's organizations are bounded.
 */
import t, { type Test } from '#tap';
import { startService, type TestService } from '../../support/system.js';
import { startSmtp, type Mail } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const DAY = 86_400_000;

async function start(t: Test, env: Record<string, string> = {}) {
  const smtp = await startSmtp(t);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url, ...env } });
  return { svc, mails: smtp.mails };
}

/** A mail's text as written: quoted-printable's soft line breaks joined. */
const unwrapped = (mail: Mail) => mail.raw.replace(/=\r?\n/g, '');

function invitationToken(mails: Mail[], to: string): string {
  const mail = mails.filter((m) => m.to.includes(to)).at(-1);
  const token = mail && /(inv_[A-Za-z0-9_-]{43}\.[0-9a-f-]{36})/.exec(unwrapped(mail))?.[1];
  if (!token) throw new Error(`no invitation mail to ${to}`);
  return token;
}

async function owner(svc: TestService, name: string, email: string) {
  const m = await svc.merchant(name);
  await svc.member(m, email, PASSWORD);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
  return { merchant: m, token: login.body.accessToken as string };
}

const invite = (svc: TestService, token: string, body: unknown) => svc.request('POST', '/api/v1/merchant/team/invitations', { key: token, body });
const accept = (svc: TestService, body: unknown) => svc.request('POST', '/api/v1/invitations/accept', { body });

t.test('an owner invites; a newcomer accepts with a password and lands in the organization with the role', async (t) => {
  const { svc, mails } = await start(t);
  const { merchant, token } = await owner(svc, 'Dakar Foods', 'owner@foods.example');
  const created = await invite(svc, token, { email: 'Finance@Foods.example', role: 'finance' });
  t.equal(created.status, 201, created.text);
  t.match(created.body, { object: 'team_invitation', email: 'finance@foods.example', role: 'finance', status: 'pending', accepted_by: null });
  const mail = mails.filter((m) => m.to.includes('finance@foods.example')).at(-1)!;
  t.match(unwrapped(mail), /Organization name, as its members wrote it \(Sika does not check it\): "Dakar Foods"/);
  const inviteToken = invitationToken(mails, 'finance@foods.example');
  t.notOk(JSON.stringify(created.body).includes(inviteToken), 'the token is only in the e-mail');

  t.match(await accept(svc, { token: inviteToken }), { status: 400, body: { code: 'IKW-VAL-001', param: 'password' } }, 'a newcomer needs a password');
  const joined = await accept(svc, { token: inviteToken, password: PASSWORD, name: 'Fatou' });
  t.equal(joined.status, 200, joined.text);
  t.match(joined.body, { user: { email: 'finance@foods.example', name: 'Fatou', role: 'finance', merchantId: merchant.id } });
  t.match(await accept(svc, { token: inviteToken, password: PASSWORD }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'an invitation is used once');

  // Finance may pay out but not manage the team.
  t.equal((await svc.request('GET', '/api/v1/balance', { key: joined.body.accessToken })).status, 200);
  t.match(await invite(svc, joined.body.accessToken, { email: 'x@foods.example', role: 'viewer' }), { status: 403, body: { code: 'IKW-ACC-002' } });
  const members = await svc.request('GET', '/api/v1/merchant/team/members', { key: token });
  t.same(
    members.body.data.map((m: { email: string; role: string }) => [m.email, m.role]),
    [
      ['owner@foods.example', 'owner'],
      ['finance@foods.example', 'finance'],
    ],
  );
  const list = await svc.request('GET', '/api/v1/merchant/team/invitations', { key: token });
  t.match(list.body.data, [{ email: 'finance@foods.example', status: 'accepted', accepted_by: joined.body.user.id }]);
  t.equal((await svc.request('POST', '/api/v1/auth/login', { body: { email: 'finance@foods.example', password: PASSWORD } })).status, 200, 'the new account signs in');
});

t.test('an existing user joins a second organization with the token alone and starts there', async (t) => {
  const { svc, mails } = await start(t);
  const a = await owner(svc, 'Shop A', 'a@shops.example');
  await owner(svc, 'Shop B', 'b@shops.example');
  await invite(svc, a.token, { email: 'b@shops.example', role: 'developer' });
  const joined = await accept(svc, { token: invitationToken(mails, 'b@shops.example') });
  t.equal(joined.status, 200, joined.text);
  t.match(joined.body.user, { email: 'b@shops.example', merchantId: a.merchant.id, role: 'developer' });
  const me = await svc.request('GET', '/api/v1/auth/me', { key: joined.body.accessToken });
  t.equal(me.body.organizations.length, 2, 'member of both');
  t.equal((await svc.request('POST', '/api/v1/auth/login', { body: { email: 'b@shops.example', password: PASSWORD } })).status, 200, 'the password still works');
});

t.test('refusals: roles, duplicates, members, revoked and expired links, other organizations', async (t) => {
  const { svc, mails } = await start(t);
  const a = await owner(svc, 'Shop A', 'owner@a.example');
  const b = await owner(svc, 'Shop B', 'owner@b.example');

  // An admin invites, but not an owner.
  await invite(svc, a.token, { email: 'admin@a.example', role: 'admin' });
  const admin = (await accept(svc, { token: invitationToken(mails, 'admin@a.example'), password: PASSWORD, name: 'Admin' })).body.accessToken as string;
  t.match(await invite(svc, admin, { email: 'boss@a.example', role: 'owner' }), { status: 403, body: { code: 'IKW-ACC-002', param: 'role' } });
  t.equal((await invite(svc, admin, { email: 'dev@a.example', role: 'developer' })).status, 201);

  t.match(await invite(svc, a.token, { email: 'DEV@a.example', role: 'viewer' }), { status: 409, body: { code: 'IKW-ACC-008', param: 'email' } }, 'one pending invitation per address');
  t.match(await invite(svc, a.token, { email: 'admin@a.example', role: 'viewer' }), { status: 409, body: { code: 'IKW-ACC-008' } }, 'already a member');
  // A retried invitation with its Idempotency-Key answers the first one again: one invitation, one e-mail.
  const once = () => svc.request('POST', '/api/v1/merchant/team/invitations', { key: a.token, body: { email: 'retry@a.example', role: 'viewer' }, headers: { 'idempotency-key': 'invite-retry' } });
  const first = await once();
  const again = await once();
  t.equal(first.status, 201);
  t.same(again.body, first.body);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(mails.filter((m) => m.to.includes('retry@a.example')).length, 1);
  t.match(await invite(svc, a.token, { email: 'not-an-address', role: 'viewer' }), { status: 400, body: { code: 'IKW-VAL-001', param: 'email' } });
  t.match(await invite(svc, a.token, { email: 'x@a.example', role: 'king' }), { status: 400, body: { code: 'IKW-VAL-001', param: 'role' } });
  t.match(await invite(svc, a.merchant.api_keys.sandbox, { email: 'x@a.example', role: 'viewer' }), { status: 403, body: { code: 'IKW-ACC-003' } });

  // Revoked: the link stops; another organization cannot revoke it or see it.
  const pending = (await svc.request('GET', '/api/v1/merchant/team/invitations', { key: a.token })).body.data.find((i: { email: string }) => i.email === 'dev@a.example');
  t.match(await svc.request('DELETE', `/api/v1/merchant/team/invitations/${pending.id}`, { key: b.token }), { status: 404, body: { code: 'IKW-RES-001' } });
  t.equal((await svc.request('GET', '/api/v1/merchant/team/invitations', { key: b.token })).body.data.length, 0);
  t.match(await svc.request('DELETE', `/api/v1/merchant/team/invitations/${pending.id}`, { key: a.token }), { status: 200, body: { status: 'revoked' } });
  t.match(await accept(svc, { token: invitationToken(mails, 'dev@a.example'), password: PASSWORD }), { status: 400, body: { code: 'IKW-ACC-006' } });
  t.match(await svc.request('DELETE', `/api/v1/merchant/team/invitations/${pending.id}`, { key: a.token }), { status: 404 }, 'revoked once');

  // Expired after 7 days; a new one may then be sent.
  await invite(svc, a.token, { email: 'slow@a.example', role: 'viewer' });
  svc.clock.advance(7 * DAY);
  a.token = (await svc.request('POST', '/api/v1/auth/login', { body: { email: 'owner@a.example', password: PASSWORD } })).body.accessToken;
  const listed = (await svc.request('GET', '/api/v1/merchant/team/invitations', { key: a.token })).body.data;
  t.match(
    listed.find((i: { email: string }) => i.email === 'slow@a.example'),
    { status: 'expired' },
  );
  t.match(await accept(svc, { token: invitationToken(mails, 'slow@a.example'), password: PASSWORD }), { status: 400, body: { code: 'IKW-ACC-006' } });
  t.equal((await invite(svc, a.token, { email: 'slow@a.example', role: 'viewer' })).status, 201);
  t.match(await accept(svc, { token: `inv_${'x'.repeat(43)}.00000000-0000-4000-8000-000000000000`, password: PASSWORD }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'made up');
});

t.test('one invitation accepted many times at once: one account, one membership', async (t) => {
  const { svc, mails } = await start(t);
  const a = await owner(svc, 'Shop A', 'owner@race.example');
  await invite(svc, a.token, { email: 'race@race.example', role: 'viewer' });
  const token = invitationToken(mails, 'race@race.example');
  const answers = await Promise.all(Array.from({ length: 8 }, () => accept(svc, { token, password: PASSWORD, name: 'Racer' })));
  t.equal(answers.filter((r) => r.status === 200).length, 1, answers.map((r) => r.status).join());
  t.ok(answers.every((r) => r.status === 200 || (r.status < 500 && /^IKW-/.test(r.body.code))));
  const members = await svc.request('GET', '/api/v1/merchant/team/members', { key: a.token });
  t.equal(members.body.data.length, 2);
  t.equal(Number((await svc.system.knex('read.users').where({ email: 'race@race.example' }).count('* as n').first())!.n), 1);
});

/** A new organization of the signed-in user (its owner) and an access token acting in it. */
async function ownOrganization(svc: TestService, token: string, displayName: string): Promise<{ status: number; code?: string; token?: string }> {
  const created = await svc.request('POST', '/api/v1/organizations', { key: token, body: { displayName, country: 'SN', type: 'business' } });
  if (created.status !== 200) return { status: created.status, code: created.body.code };
  const switched = await svc.request('POST', '/api/v1/organizations/switch', { key: token, body: { organizationId: created.body.id } });
  return { status: 200, token: switched.body.accessToken };
}

t.test('the organization’s name is its members’ words: quoted, labelled, on one line, never the subject', async (t) => {
  const { svc, mails } = await start(t);
  const a = await owner(svc, 'Shop A', 'owner@names.example');
  const forged = await ownOrganization(svc, a.token, 'Sika Security\r\nYour account is locked:\u202e https://evil.example');
  t.equal((await invite(svc, forged.token!, { email: 'target@names.example', role: 'viewer' })).status, 201);
  const mail = unwrapped(mails.filter((m) => m.to.includes('target@names.example')).at(-1)!);
  t.match(mail, /^Subject: An invitation to an organization on Sika\r?$/m, 'a subject of the service’s own words');
  t.match(mail, /Organization name, as its members wrote it \(Sika does not check it\): "Sika Security Your account is locked: https:\/\/evil\.example"/, 'quoted and labelled, line breaks and bidi overrides gone');
  t.notMatch(mail, /^Your account is locked/m, 'no line of its own');
});

t.test('invitations are limited per organization and per inviter a day', async (t) => {
  const { svc, mails } = await start(t, { INVITATION_LIMIT: '3/24h', INVITATION_INVITER_LIMIT: '2/24h' });
  const a = await owner(svc, 'Shop A', 'owner@limits.example');
  await invite(svc, a.token, { email: 'admin@limits.example', role: 'admin' });
  const admin = (await accept(svc, { token: invitationToken(mails, 'admin@limits.example'), password: PASSWORD, name: 'Admin' })).body.accessToken as string;

  // The owner has used two (the admin's and this one): its third is over the inviter's limit.
  t.equal((await invite(svc, a.token, { email: 'one@limits.example', role: 'viewer' })).status, 201);
  const inviterOver = await invite(svc, a.token, { email: 'two@limits.example', role: 'viewer' });
  t.match(inviterOver, { status: 429, body: { code: 'IKW-LIM-001' } }, 'per inviter');
  t.ok(Number(inviterOver.headers.get('retry-after')) > 0, 'with Retry-After');
  // The admin's first is the organization's third (the owner's refused attempt counted too: it is over).
  t.match(await invite(svc, admin, { email: 'three@limits.example', role: 'viewer' }), { status: 429, body: { code: 'IKW-LIM-001' } }, 'per organization');
  t.notOk(
    mails.some((m) => m.to.includes('two@limits.example') || m.to.includes('three@limits.example')),
    'no mail over a limit',
  );

  // The owner's other organization: its own allowance, but not the owner's.
  const other = await ownOrganization(svc, a.token, 'Shop A bis');
  t.match(await invite(svc, other.token!, { email: 'four@limits.example', role: 'viewer' }), { status: 429, body: { code: 'IKW-LIM-001' } }, 'an inviter’s limit spans organizations');

  // Hours later, with ended windows purged, the day still counts; the next day it is new.
  svc.clock.advance(3 * 3_600_000);
  await svc.system.rateLimiter.purge();
  // Access tokens live 15 minutes: the admin signs in again.
  const signIn = async (email: string) => (await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body.accessToken as string;
  t.match(await invite(svc, await signIn('admin@limits.example'), { email: 'five@limits.example', role: 'viewer' }), { status: 429 }, 'a day, not an hour');
  svc.clock.advance(DAY);
  t.equal((await invite(svc, await signIn('admin@limits.example'), { email: 'five@limits.example', role: 'viewer' })).status, 201, 'the next day');
});

t.test('a user belongs to at most ORGANIZATIONS_PER_USER organizations, created or joined', async (t) => {
  const { svc, mails } = await start(t, { ORGANIZATIONS_PER_USER: '2' });
  const u = await owner(svc, 'Shop U', 'u@bound.example');
  t.equal((await ownOrganization(svc, u.token, 'Second')).status, 200, 'a second one');
  t.match(await ownOrganization(svc, u.token, 'Third'), { status: 409, code: 'IKW-ACC-012' }, 'not a third');
  const orgs = (await svc.request('GET', '/api/v1/organizations/mine', { key: u.token })).body.data;
  t.equal(orgs.length, 2);

  const other = await owner(svc, 'Shop O', 'o@bound.example');
  t.equal((await invite(svc, other.token, { email: 'u@bound.example', role: 'viewer' })).status, 201, 'an invitation says nothing of the invitee');
  const joined = await accept(svc, { token: invitationToken(mails, 'u@bound.example') });
  t.match(joined, { status: 409, body: { code: 'IKW-ACC-012' } }, 'nor joining one');
  t.equal((await svc.request('GET', '/api/v1/organizations/mine', { key: u.token })).body.data.length, 2);
});
