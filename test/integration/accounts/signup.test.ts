/**
 * The way into an account (docs/accounts.md, "Sign-up" and "Recovery"): pre-signup codes by e-mail
 * (a real SMTP server on loopback) and SMS (the sandbox outbox), register, magic links, forgotten
 * passwords; what each refuses, that none tells whether an address has an account, and that no
 * code or link is stored in clear in the log.
 */
import t, { type Test } from '#tap';
import { startService, type TestService } from '../../support/system.js';
import { startSmtp, type Mail } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;

async function start(t: Test, env: Record<string, string> = {}) {
  const smtp = await startSmtp(t);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url, ...env } });
  return { svc, mails: smtp.mails };
}

/** The text of the last mail to `to` (quoted-printable soft breaks undone). */
function lastMail(mails: Mail[], to: string): string {
  const mail = mails.filter((m) => m.to.includes(to)).at(-1);
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}
const codeIn = (text: string) => /code is (\d{6})/.exec(text)?.[1];
const tokenIn = (text: string, prefix: string) => new RegExp(`(${prefix}_[A-Za-z0-9_-]{43}\\.[0-9a-f-]{36})`).exec(text)?.[1];

async function smsCode(svc: TestService, phone: string): Promise<string | undefined> {
  const [kept] = await svc.system.outbox.kept({ channel: 'sms', recipient: phone }, 1);
  return kept?.text ? codeIn(kept.text) : undefined;
}

const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });

/** A verified e-mail challenge for `email`. */
async function verifiedEmail(svc: TestService, mails: Mail[], email: string): Promise<string> {
  const challenge = await post(svc, '/api/v1/auth/pre-signup/email/challenge', { email });
  const code = codeIn(lastMail(mails, email.toLowerCase()))!;
  const verified = await post(svc, '/api/v1/auth/pre-signup/email/verify', { challengeId: challenge.body.challengeId, code });
  if (verified.status !== 200) throw new Error(verified.text);
  return challenge.body.challengeId;
}

const registration = (email: string, emailChallengeId: string, more: Record<string, unknown> = {}) => ({ email, password: PASSWORD, name: 'Awa Diop', merchantName: 'Boutique Awa', emailChallengeId, country: 'SN', ...more });

t.test('sign-up: e-mail and SMS codes, register, then the user acts for a new merchant in both environments', async (t) => {
  const { svc, mails } = await start(t);
  const challenge = await post(svc, '/api/v1/auth/pre-signup/email/challenge', { email: 'Awa@Boutique.example' });
  t.equal(challenge.status, 200);
  t.match(challenge.body, { challengeId: /^[0-9a-f-]{36}$/, expiresAt: new Date(svc.clock.now().getTime() + 10 * MINUTE).toISOString() });
  const code = codeIn(lastMail(mails, 'awa@boutique.example'));
  t.ok(code, 'the code came by e-mail');

  const wrong = code === '000000' ? '000001' : '000000';
  t.match(await post(svc, '/api/v1/auth/pre-signup/email/verify', { challengeId: challenge.body.challengeId, code: wrong }), { status: 400, body: { code: 'IKW-ACC-005', param: 'code', message: /4 tries left/ } });
  t.match(await post(svc, '/api/v1/auth/pre-signup/email/verify', { challengeId: challenge.body.challengeId, code }), { status: 200, body: { verified: true } });
  t.match(await post(svc, '/api/v1/auth/pre-signup/email/verify', { challengeId: challenge.body.challengeId, code }), { status: 200 }, 'verifying again with the right code is harmless');

  const phoneChallenge = await post(svc, '/api/v1/auth/pre-signup/phone/challenge', { phone: '77 123 45 67', country: 'SN' });
  t.equal(phoneChallenge.status, 200);
  const sms = await smsCode(svc, '+221771234567');
  t.ok(sms, 'the SMS is in the sandbox outbox, to the E.164 number');
  t.match(await post(svc, '/api/v1/auth/pre-signup/email/verify', { challengeId: phoneChallenge.body.challengeId, code: sms }), { status: 404, body: { code: 'IKW-RES-001' } }, 'an SMS challenge is not verified on the e-mail route');
  t.match(await post(svc, '/api/v1/auth/pre-signup/phone/verify', { challengeId: phoneChallenge.body.challengeId, code: sms }), { status: 200, body: { verified: true } });

  const reg = await post(svc, '/api/v1/auth/register', registration('awa@boutique.example', challenge.body.challengeId, { phone: '+221 77 123 45 67', phoneChallengeId: phoneChallenge.body.challengeId }));
  t.equal(reg.status, 201, reg.text);
  t.match(reg.body, { accessToken: /\./, refreshToken: /^rt_/, user: { email: 'awa@boutique.example', name: 'Awa Diop', role: 'owner', merchantId: /^acct_/ } });

  const me = await svc.request('GET', '/api/v1/auth/me', { key: reg.body.accessToken });
  t.match(me.body, { phone: '+221771234567', organizations: [{ displayName: 'Boutique Awa', role: 'owner' }] });
  for (const environment of ['sandbox', 'live']) {
    const balance = await svc.request('GET', '/api/v1/balance', { key: reg.body.accessToken, headers: { 'x-environment': environment } });
    t.equal(balance.status, 200, `the new merchant answers in ${environment}`);
  }
  const steps = await svc.request('GET', '/api/v1/onboarding/steps', { key: reg.body.accessToken });
  const state = Object.fromEntries((steps.body.data as { key: string; state: string }[]).map((s) => [s.key, s.state]));
  t.match(state, { email_verified: 'complete', phone_verified: 'complete', business_profile: 'complete' });
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'awa@boutique.example', password: PASSWORD })).status, 200, 'the password signs in');

  // The log records that codes were sent and to whom, never the codes.
  const events = await svc.system.knex('events').where('stream_id', 'like', 'verification-%').select('type', 'data');
  t.same(events.map((e) => e.type).sort(), ['verification.consumed', 'verification.consumed', 'verification.failed', 'verification.started', 'verification.started', 'verification.succeeded', 'verification.succeeded']);
  t.notOk(JSON.stringify(events).includes(code!), 'the e-mail code is not in the log');
  t.notOk(JSON.stringify(events).includes(sms!), 'the SMS code is not in the log');
  const delivered = await svc.system.knex('message_outbox').where({ channel: 'email' }).select('body', 'sent_at');
  t.ok(
    delivered.every((m) => m.body === null && m.sent_at !== null),
    'e-mails that SMTP took keep no text',
  );
  const keptSms = (await svc.system.knex('message_outbox').where({ channel: 'sms' }).select('body')) as { body: string }[];
  // Ciphertext is base64, which may hold six digits in a row by chance (about once in 500 runs); only this code is a leak.
  t.ok(keptSms.length > 0 && keptSms.every((m) => m.body?.startsWith('v1:') && !m.body.includes(sms!)), 'an SMS no gateway took keeps its text sealed, never the code in clear');
});

t.test('register refuses what a challenge did not prove', async (t) => {
  const { svc, mails } = await start(t);
  const register = (body: Record<string, unknown>) => post(svc, '/api/v1/auth/register', body);
  const unverified = (await post(svc, '/api/v1/auth/pre-signup/email/challenge', { email: 'b@shop.example' })).body.challengeId;
  const verified = await verifiedEmail(svc, mails, 'a@shop.example');

  t.match(await register({ email: 'a@shop.example', password: PASSWORD, name: 'A', merchantName: 'A' }), { status: 400, body: { code: 'IKW-ACC-007', param: 'emailChallengeId' } });
  t.match(await register(registration('b@shop.example', unverified)), { status: 400, body: { code: 'IKW-ACC-007' } }, 'not verified');
  t.match(await register(registration('c@shop.example', verified)), { status: 400, body: { code: 'IKW-ACC-007' } }, 'verified for another address');
  t.match(await register(registration('a@shop.example', verified, { phone: '+221771234567' })), { status: 400, body: { code: 'IKW-ACC-007', param: 'phoneChallengeId' } });
  t.match(await register(registration('a@shop.example', verified, { phone: 'not a phone', phoneChallengeId: verified })), { status: 400, body: { code: 'IKW-VAL-001', param: 'phone' } });
  t.match(await register(registration('a@shop.example', '00000000-0000-4000-8000-000000000000')), { status: 404, body: { code: 'IKW-RES-001', param: 'emailChallengeId' } });
  t.match(await register(registration('a@shop.example', verified, { password: 'short' })), { status: 400, body: { code: 'IKW-VAL-001', param: 'password' } });
  t.equal(
    await svc.system
      .knex('read.users')
      .count('* as n')
      .first()
      .then((r) => Number(r!.n)),
    0,
    'nothing was created by a refusal',
  );

  t.equal((await register(registration('a@shop.example', verified))).status, 201);
  t.match(await register(registration('a@shop.example', verified)), { status: 400, body: { code: 'IKW-ACC-006' } }, 'a challenge signs up once');

  // A verified challenge can be used for an hour.
  const late = await verifiedEmail(svc, mails, 'late@shop.example');
  svc.clock.advance(61 * MINUTE);
  t.match(await register(registration('late@shop.example', late)), { status: 400, body: { code: 'IKW-ACC-006' } });
});

t.test('codes expire after 10 minutes and die after five wrong tries', async (t) => {
  const { svc, mails } = await start(t);
  const verify = (challengeId: string, code: string) => post(svc, '/api/v1/auth/pre-signup/email/verify', { challengeId, code });
  const first = (await post(svc, '/api/v1/auth/pre-signup/email/challenge', { email: 'slow@shop.example' })).body.challengeId;
  const code = codeIn(lastMail(mails, 'slow@shop.example'))!;
  svc.clock.advance(10 * MINUTE);
  t.match(await verify(first, code), { status: 400, body: { code: 'IKW-ACC-006' } }, 'expired');

  const second = (await post(svc, '/api/v1/auth/pre-signup/email/challenge', { email: 'slow@shop.example' })).body.challengeId;
  const right = codeIn(lastMail(mails, 'slow@shop.example'))!;
  const wrong = right === '123456' ? '654321' : '123456';
  for (let i = 4; i >= 0; i--) t.match(await verify(second, wrong), { status: 400, body: { code: 'IKW-ACC-005', message: i > 0 ? new RegExp(`${i} tries left`) : /no tries left/ } });
  t.match(await verify(second, right), { status: 400, body: { code: 'IKW-ACC-006' } }, 'the right code after five wrong ones is refused');
  t.match(await verify('00000000-0000-4000-8000-000000000000', right), { status: 404, body: { code: 'IKW-RES-001' } });
  t.match(await verify(second, '12345'), { status: 400, body: { code: 'IKW-VAL-001', param: 'code' } });
});

t.test('no enumeration: a taken address gets the same answer and a mail without a code', async (t) => {
  const { svc, mails } = await start(t);
  const m = await svc.merchant();
  await svc.member(m, 'taken@shop.example', PASSWORD);
  const taken = await post(svc, '/api/v1/auth/pre-signup/email/challenge', { email: 'TAKEN@shop.example' });
  const free = await post(svc, '/api/v1/auth/pre-signup/email/challenge', { email: 'free@shop.example' });
  t.equal(taken.status, free.status);
  t.same(Object.keys(taken.body).sort(), Object.keys(free.body).sort());
  const mail = lastMail(mails, 'taken@shop.example');
  t.match(mail, /already has an account/);
  t.notOk(codeIn(mail), 'no code to verify with');

  for (const path of ['/api/v1/auth/magic-link', '/api/v1/auth/forgot-password']) {
    const known = await post(svc, path, { email: 'taken@shop.example' });
    const unknown = await post(svc, path, { email: 'nobody@shop.example' });
    t.same([known.status, known.body], [202, { sent: true }]);
    t.same([unknown.status, unknown.body], [known.status, known.body], `${path} answers the same for an unknown address`);
  }
  t.notOk(
    mails.some((m) => m.to.includes('nobody@shop.example')),
    'an unknown address gets no mail',
  );
});

t.test('two sign-ups racing with one challenge: one account', async (t) => {
  const { svc, mails } = await start(t);
  const challengeId = await verifiedEmail(svc, mails, 'race@shop.example');
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(svc, '/api/v1/auth/register', registration('race@shop.example', challengeId, { merchantName: `Shop ${i}` }))));
  t.equal(answers.filter((a) => a.status === 201).length, 1, answers.map((a) => a.status).join());
  t.ok(
    answers.every((a) => a.status === 201 || (a.status >= 400 && a.status < 500 && /^IKW-/.test(a.body.code))),
    'the others are coded refusals',
  );
  t.equal(Number((await svc.system.knex('read.users').count('* as n').first())!.n), 1);
  t.equal(Number((await svc.system.knex('read.organizations').count('* as n').first())!.n), 1, 'no organization without its user');
});

t.test('magic link: signs in once, within 15 minutes', async (t) => {
  const { svc, mails } = await start(t);
  const m = await svc.merchant('Magic shop');
  await svc.member(m, 'magic@shop.example', PASSWORD);
  t.equal((await post(svc, '/api/v1/auth/magic-link', { email: 'Magic@Shop.example' })).status, 202);
  const token = tokenIn(lastMail(mails, 'magic@shop.example'), 'ml')!;
  t.ok(token);
  const signedIn = await post(svc, '/api/v1/auth/magic-link/verify', { token });
  t.equal(signedIn.status, 200, signedIn.text);
  t.match(signedIn.body, { refreshToken: /^rt_/, user: { email: 'magic@shop.example', merchantId: m.id } });
  t.match(await post(svc, '/api/v1/auth/magic-link/verify', { token }), { status: 400, body: { code: 'IKW-ACC-006', param: 'token' } }, 'single use');

  await post(svc, '/api/v1/auth/magic-link', { email: 'magic@shop.example' });
  const late = tokenIn(lastMail(mails, 'magic@shop.example'), 'ml')!;
  svc.clock.advance(15 * MINUTE);
  t.match(await post(svc, '/api/v1/auth/magic-link/verify', { token: late }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'expired');
  t.match(await post(svc, '/api/v1/auth/magic-link/verify', { token: `ml_${'a'.repeat(43)}.00000000-0000-4000-8000-000000000000` }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'made up');
  t.match(await post(svc, '/api/v1/auth/magic-link/verify', { token: 'garbage' }), { status: 400, body: { code: 'IKW-ACC-006' } });

  // A reset link is not a magic link.
  await post(svc, '/api/v1/auth/forgot-password', { email: 'magic@shop.example' });
  const reset = tokenIn(lastMail(mails, 'magic@shop.example'), 'pr')!;
  t.match(await post(svc, '/api/v1/auth/magic-link/verify', { token: reset }), { status: 400, body: { code: 'IKW-ACC-006' } });
});

t.test('forgot and reset password: a new password, once, within 30 minutes; every session ends', async (t) => {
  const { svc, mails } = await start(t);
  const m = await svc.merchant();
  await svc.member(m, 'forgot@shop.example', PASSWORD);
  const before = (await post(svc, '/api/v1/auth/login', { email: 'forgot@shop.example', password: PASSWORD })).body;

  await post(svc, '/api/v1/auth/forgot-password', { email: 'forgot@shop.example' });
  const token = tokenIn(lastMail(mails, 'forgot@shop.example'), 'pr')!;
  t.match(await post(svc, '/api/v1/auth/reset-password', { token, newPassword: 'short' }), { status: 400, body: { code: 'IKW-VAL-001', param: 'newPassword' } });
  t.match(await post(svc, '/api/v1/auth/reset-password', { token, newPassword: 'a brand new password' }), { status: 200, body: { reset: true } });
  t.match(lastMail(mails, 'forgot@shop.example'), /password was reset/, 'the user is told');
  t.match(await post(svc, '/api/v1/auth/reset-password', { token, newPassword: 'yet another password' }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'single use');

  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: before.accessToken })).status, 401, 'the old session ended');
  t.equal((await post(svc, '/api/v1/auth/refresh', { refreshToken: before.refreshToken })).status, 401);
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'forgot@shop.example', password: PASSWORD })).status, 401, 'the old password is gone');
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'forgot@shop.example', password: 'a brand new password' })).status, 200);

  await post(svc, '/api/v1/auth/forgot-password', { email: 'forgot@shop.example' });
  const late = tokenIn(lastMail(mails, 'forgot@shop.example'), 'pr')!;
  svc.clock.advance(30 * MINUTE);
  t.match(await post(svc, '/api/v1/auth/reset-password', { token: late, newPassword: 'too late password' }), { status: 400, body: { code: 'IKW-ACC-006' } });
  const events = await svc.system.knex('events').where('stream_id', 'like', 'user-%').select('data');
  t.notOk(JSON.stringify(events).includes(token), 'the token is not in the log');
});

t.test('requests that send messages are throttled per address, successes included', async (t) => {
  const { svc } = await start(t, { RATE_LIMIT_SIGN_IN: '3/15m' });
  for (const path of ['/api/v1/auth/magic-link', '/api/v1/auth/forgot-password', '/api/v1/auth/pre-signup/email/challenge']) {
    for (let i = 0; i < 3; i++) t.ok((await post(svc, path, { email: 'spam@shop.example' })).status < 300);
    const over = await post(svc, path, { email: 'spam@shop.example' });
    t.match(over, { status: 429, body: { code: 'IKW-LIM-001' } }, path);
    t.ok(Number(over.headers.get('retry-after')) > 0);
    t.ok((await post(svc, path, { email: 'other@shop.example' })).status < 300, 'another address is not held back');
  }
  svc.clock.advance(15 * MINUTE);
  t.ok((await post(svc, '/api/v1/auth/magic-link', { email: 'spam@shop.example' })).status < 300, 'the window passes');
});
