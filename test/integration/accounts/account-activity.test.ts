/**
 * Proving the current e-mail and phone, the pending e-mail change, and the account's activity
 * (docs/accounts.md, "Account activity and contacts").
 */
import t from '#tap';
import { startService, type TestService } from '../../support/system.js';
import { startSmtp, type Mail } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });
const mailCode = (mails: Mail[], to: string) => /confirm this address is (\d{6})/.exec(mails.filter((m) => m.to.includes(to)).at(-1)?.raw ?? '')?.[1] ?? '';

t.test('verify-email and verify-phone: a code to the current address proves it; another user cannot use it', async (t) => {
  const smtp = await startSmtp(t);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url } });
  const m = await svc.merchant();
  await svc.member(m, 'cli@shop.example', PASSWORD);
  await svc.member(m, 'other@shop.example', PASSWORD, 'viewer');
  const token = (await post(svc, '/api/v1/auth/login', { email: 'cli@shop.example', password: PASSWORD })).body.accessToken;
  const other = (await post(svc, '/api/v1/auth/login', { email: 'other@shop.example', password: PASSWORD })).body.accessToken;
  const steps = async () => Object.fromEntries(((await svc.request('GET', '/api/v1/onboarding/steps', { key: token })).body.data as { key: string; state: string }[]).map((s) => [s.key, s.state]));
  t.equal((await steps()).email_verified, 'incomplete', 'a user made by the CLI has not proved an address');

  const challenge = await post(svc, '/api/v1/auth/verify-email/challenge', undefined, token);
  t.match(challenge, { status: 202, body: { challengeId: /^[0-9a-f-]{36}$/ } });
  const code = mailCode(smtp.mails, 'cli@shop.example');
  t.match(await post(svc, '/api/v1/auth/verify-email', { challengeId: challenge.body.challengeId, code }, other), { status: 404, body: { code: 'IKW-RES-001' } }, "another user's challenge");
  t.match(await post(svc, '/api/v1/auth/verify-phone', { challengeId: challenge.body.challengeId, code }, token), { status: 404 }, 'an e-mail challenge is not a phone one');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: challenge.body.challengeId, code }), { status: 404 }, 'nor a second factor');
  t.match(await post(svc, '/api/v1/auth/verify-email', { challengeId: challenge.body.challengeId, code: code === '000000' ? '111111' : '000000' }, token), { status: 400, body: { code: 'IKW-ACC-005' } });
  t.match(await post(svc, '/api/v1/auth/verify-email', { challengeId: challenge.body.challengeId, code }, token), { status: 200, body: { verified: true, address: 'cli@shop.example' } });
  t.match(await post(svc, '/api/v1/auth/verify-email', { challengeId: challenge.body.challengeId, code }, token), { status: 400, body: { code: 'IKW-ACC-006' } }, 'once');
  t.equal((await steps()).email_verified, 'complete');

  t.match(await post(svc, '/api/v1/auth/verify-phone/challenge', undefined, token), { status: 409, body: { code: 'IKW-RES-002' } }, 'no phone yet');
  t.match(await svc.request('GET', '/api/v1/auth/email-change', { key: token }), { status: 200, body: { pending: null } });
  t.match(await svc.request('GET', '/api/v1/auth/google', { key: token }), { status: 200, body: { connected: false } });
});

t.test('account activity: sign-ins, sign-outs and changes, newest first, with address and user agent; only the user’s own', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  await svc.member(m, 'act@shop.example', PASSWORD);
  await svc.member(m, 'someone@shop.example', PASSWORD, 'viewer');
  const login = (email: string, agent: string) => svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD }, headers: { 'user-agent': agent } });
  const first = (await login('act@shop.example', 'Phone/1')).body;
  svc.clock.advance(1000);
  const second = (await login('act@shop.example', 'Laptop/2')).body;
  await post(svc, '/api/v1/auth/change-password', { currentPassword: PASSWORD, newPassword: 'another password' }, second.accessToken);
  await login('someone@shop.example', 'Other/3');

  const activity = await svc.request('GET', '/api/v1/auth/security-events', { key: second.accessToken });
  t.equal(activity.status, 200);
  t.same(
    activity.body.data.map((e: { type: string }) => e.type),
    ['session_revoked', 'password_changed', 'session_started', 'session_started'],
  );
  t.match(activity.body.data[0], { detail: { reason: 'password_changed', sessionId: /./ }, ip: /127\.0\.0\.1/ });
  t.match(activity.body.data[3], { userAgent: 'Phone/1', detail: { merchantId: m.id } });
  t.notOk(JSON.stringify(activity.body).includes('Other/3'), "another user's sign-in is not shown");
  t.notOk(JSON.stringify(activity.body).match(/refreshHash|passwordHash/), 'no hash is shown');
  t.same((await svc.request('GET', '/api/v1/auth/security-events?limit=1', { key: second.accessToken })).body.data.length, 1);
  t.match(await svc.request('GET', '/api/v1/auth/security-events?limit=0', { key: second.accessToken }), { status: 400, body: { code: 'IKW-VAL-001', param: 'limit' } });
  t.equal((await svc.request('GET', '/api/v1/auth/security-events', { key: first.accessToken })).status, 401, 'the session the password change ended');

  // Sign out everywhere: this session too.
  const third = (await login('act@shop.example', 'Tablet/3')).body;
  await post(svc, '/api/v1/auth/change-password', { currentPassword: 'another password', newPassword: 'another password 2' }, second.accessToken);
  const fourth = (await svc.request('POST', '/api/v1/auth/login', { body: { email: 'act@shop.example', password: 'another password 2' } })).body;
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: third.accessToken })).status, 401);
  t.match(await post(svc, '/api/v1/auth/sessions/revoke-all', undefined, fourth.accessToken), { status: 200, body: { revoked: 2 } }, 'this session and the one that changed the password');
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: fourth.accessToken })).status, 401, 'the caller is signed out too');
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: second.accessToken })).status, 401);
  t.equal((await post(svc, '/api/v1/auth/refresh', { refreshToken: fourth.refreshToken })).status, 401);
});
