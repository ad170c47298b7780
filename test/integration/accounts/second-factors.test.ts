/**
 * Second factors and the changes they guard (docs/accounts.md): challenges by e-mail code or
 * authenticator app (TOTP, codes made here with otplib as an app would), recovery codes, sign-in
 * with a second factor, and e-mail, phone and password changes.
 */
import { generate } from 'otplib';
import t, { type Test } from '#tap';
import { startService, type TestService } from '../../support/system.js';
import { enableTotp, passwordChallenge } from '../../support/accounts/second-factors.js';
import { lastMail, mailedCode, startSmtp, type Mail } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';

async function start(t: Test) {
  const smtp = await startSmtp(t);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url } });
  return { svc, mails: smtp.mails };
}

const mailCode = mailedCode;
const appCode = (secret: string, svc: TestService) => generate({ secret, epoch: Math.floor(svc.clock.now().getTime() / 1000) });

async function user(svc: TestService, email: string) {
  const m = await svc.merchant();
  await svc.member(m, email, PASSWORD);
  return signIn(svc, email);
}
async function signIn(svc: TestService, email: string, password = PASSWORD) {
  const res = await svc.request('POST', '/api/v1/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { accessToken: string; refreshToken: string; mfaRequired?: true; challengeId?: string };
}
const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });

/** A verified challenge of `purpose`, answered by the e-mailed code. */
async function emailChallenge(svc: TestService, mails: Mail[], token: string, email: string, purpose: string): Promise<string> {
  const challenge = await post(svc, '/api/v1/auth/mfa/challenge', { purpose }, token);
  if (challenge.status !== 200) throw new Error(challenge.text);
  const verified = await post(svc, '/api/v1/auth/mfa/verify', { challengeId: challenge.body.challengeId, code: mailCode(mails, email) });
  if (verified.status !== 200) throw new Error(verified.text);
  return challenge.body.challengeId;
}

t.test('an e-mailed challenge guards change-password-mfa: right purpose, right user, once, in time', async (t) => {
  const { svc, mails } = await start(t);
  const me = await user(svc, 'awa@shop.example');
  const other = await signIn(svc, 'awa@shop.example');
  const bo = await user(svc, 'bo@shop.example');

  const challenge = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'change-password-mfa' }, me.accessToken);
  t.match(challenge, { status: 200, body: { challengeId: /^[0-9a-f-]{36}$/, purpose: 'change-password-mfa', factor: 'email' } });
  const code = mailCode(mails, 'awa@shop.example');
  t.match(await post(svc, '/api/v1/auth/change-password-mfa', { challengeId: challenge.body.challengeId, newPassword: 'a new password' }, me.accessToken), { status: 400, body: { code: 'IKW-ACC-007' } }, 'not verified yet');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: challenge.body.challengeId, code: code === '000000' ? '111111' : '000000' }), { status: 400, body: { code: 'IKW-ACC-005' } });
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: challenge.body.challengeId, code }), { status: 200, body: { verified: true } });
  t.notOk((await post(svc, '/api/v1/auth/mfa/verify', { challengeId: challenge.body.challengeId, code })).body.accessToken, 'only a login challenge answers with tokens');

  t.match(await post(svc, '/api/v1/auth/change-email', { challengeId: challenge.body.challengeId, newEmail: 'x@shop.example' }, me.accessToken), { status: 400, body: { code: 'IKW-ACC-007' } }, 'a challenge of another purpose');
  t.match(await post(svc, '/api/v1/auth/change-password-mfa', { challengeId: challenge.body.challengeId, newPassword: 'a new password' }, bo.accessToken), { status: 404, body: { code: 'IKW-RES-001' } }, "another user's challenge");
  t.match(await post(svc, '/api/v1/auth/change-password-mfa', { challengeId: challenge.body.challengeId, newPassword: 'a new password' }, me.accessToken), { status: 200, body: { changed: true } });
  t.match(await post(svc, '/api/v1/auth/change-password-mfa', { challengeId: challenge.body.challengeId, newPassword: 'another password' }, me.accessToken), { status: 400, body: { code: 'IKW-ACC-006' } }, 'used once');
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: me.accessToken })).status, 200, 'this session goes on');
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: other.accessToken })).status, 401, 'the other session ended');
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'awa@shop.example', password: 'a new password' })).status, 200);
  t.match(lastMail(mails, 'awa@shop.example'), /password of your Sika account was changed/);

  const late = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'change-phone' }, me.accessToken);
  const lateCode = mailCode(mails, 'awa@shop.example');
  svc.clock.advance(5 * 60_000);
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: late.body.challengeId, code: lateCode }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'five minutes');

  const fresh = (await signIn(svc, 'awa@shop.example', 'a new password')).accessToken;
  t.match(await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'login' }, fresh), { status: 400, body: { code: 'IKW-VAL-001', param: 'purpose' } }, 'login challenges come from login only');
  t.match(await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'change-phone' }, (await svc.sandboxMerchant()).key), { status: 403, body: { code: 'IKW-ACC-003' } });
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: '00000000-0000-4000-8000-000000000000', code: '123456' }), { status: 404 });
});

t.test('authenticator app: set up, then sign-in asks for it; each code once, recovery codes once; removed behind a challenge', async (t) => {
  const { svc, mails } = await start(t);
  const me = await user(svc, 'totp@shop.example');
  const setup = await post(svc, '/api/v1/auth/mfa/totp/setup', { challengeId: await passwordChallenge(svc, me.accessToken, 'mfa/totp/setup', PASSWORD) }, me.accessToken);
  t.equal(setup.status, 201, setup.text);
  t.match(setup.body, { secretId: /^[0-9a-f-]{36}$/, secret: /^[A-Z2-7]+$/, otpauthUrl: /^otpauth:\/\/totp\/Sika:totp%40shop\.example\?.*secret=/, qrCodeSvg: /^<svg/ });
  const secret = setup.body.secret as string;
  const events = await svc.system.knex('events').where('stream_id', 'like', 'user-%').select('data');
  t.notOk(JSON.stringify(events).includes(secret), 'the secret is sealed in the log');

  t.match(await post(svc, '/api/v1/auth/mfa/totp/verify', { secretId: setup.body.secretId, code: '000000' }, me.accessToken), { status: 400, body: { code: 'IKW-ACC-005' } });
  const first = await appCode(secret, svc);
  const on = await post(svc, '/api/v1/auth/mfa/totp/verify', { secretId: setup.body.secretId, code: first }, me.accessToken);
  t.equal(on.status, 200, on.text);
  t.equal(on.body.recoveryCodes.length, 10);
  t.match(on.body.recoveryCodes[0], /^[a-z2-7]{5}-[a-z2-7]{5}$/);
  t.match(lastMail(mails, 'totp@shop.example'), /authenticator app was added/);
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: me.accessToken }), { status: 200, body: { totpEnabled: true, recoveryCodesRemaining: 10, strongestFactor: 'totp' } });
  const again = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'mfa/totp/setup' }, me.accessToken);
  t.match(again.body, { factor: 'totp' }, 'with a factor, adding another is answered by it');
  svc.clock.advance(30_000);
  t.equal((await post(svc, '/api/v1/auth/mfa/verify', { challengeId: again.body.challengeId, code: await appCode(secret, svc) })).status, 200);
  t.match(await post(svc, '/api/v1/auth/mfa/totp/setup', { challengeId: again.body.challengeId }, me.accessToken), { status: 409, body: { code: 'IKW-RES-002' } }, 'one app at a time');

  // Sign-in now stops at the second factor.
  const login = await signIn(svc, 'totp@shop.example');
  t.match(login, { mfaRequired: true, factor: 'totp', purpose: 'login' });
  t.notOk(login.accessToken, 'no tokens before the second factor');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: login.challengeId, code: first }), { status: 400, body: { code: 'IKW-ACC-005', message: /already used/ } }, 'the code of a time step already used is refused');
  svc.clock.advance(30_000);
  const signedIn = await post(svc, '/api/v1/auth/mfa/verify', { challengeId: login.challengeId, code: await appCode(secret, svc) });
  t.match(signedIn, { status: 200, body: { verified: true, accessToken: /\./, refreshToken: /^rt_/ } });
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: login.challengeId, code: await appCode(secret, svc) }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'a login challenge signs in once');

  // A recovery code stands in for the app, once.
  const recovery = on.body.recoveryCodes[3] as string;
  const second = await signIn(svc, 'totp@shop.example');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: second.challengeId, code: recovery.toUpperCase() }), { status: 200, body: { accessToken: /\./ } });
  const third = await signIn(svc, 'totp@shop.example');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: third.challengeId, code: recovery }), { status: 400, body: { code: 'IKW-ACC-005' } }, 'used once');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: third.challengeId, code: 'aaaaa-aaaaa' }), { status: 400, body: { code: 'IKW-ACC-005' } });

  // New recovery codes, then removal: each behind a challenge the app answers.
  const token = signedIn.body.accessToken as string;
  const answer = async (purpose: string) => {
    const c = await post(svc, '/api/v1/auth/mfa/challenge', { purpose }, token);
    t.match(c.body, { factor: 'totp' });
    svc.clock.advance(30_000);
    t.equal((await post(svc, '/api/v1/auth/mfa/verify', { challengeId: c.body.challengeId, code: await appCode(secret, svc) })).status, 200);
    return c.body.challengeId as string;
  };
  const replaced = await post(svc, '/api/v1/auth/mfa/recovery-codes', { challengeId: await answer('mfa/recovery-codes') }, token);
  t.equal(replaced.body.recoveryCodes.length, 10);
  const fourth = await signIn(svc, 'totp@shop.example');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: fourth.challengeId, code: on.body.recoveryCodes[0] }), { status: 400, body: { code: 'IKW-ACC-005' } }, 'the old codes stopped working');

  t.match(await post(svc, '/api/v1/auth/mfa/totp/disable', { challengeId: await answer('change-email') }, token), { status: 400, body: { code: 'IKW-ACC-007' } }, 'a challenge of another purpose');
  t.match(await post(svc, '/api/v1/auth/mfa/totp/disable', { challengeId: await answer('mfa/totp/disable') }, token), { status: 200, body: { disabled: true } });
  t.match(lastMail(mails, 'totp@shop.example'), /authenticator app was removed/);
  t.match(await signIn(svc, 'totp@shop.example'), { accessToken: /\./ }, 'sign-in no longer asks');
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: token }), { body: { totpEnabled: false, recoveryCodesRemaining: 0, strongestFactor: 'email' } });
});

t.test('e-mail change: a link to the new address moves the account; cancel; a taken address is refused', async (t) => {
  const { svc, mails } = await start(t);
  const me = await user(svc, 'old@shop.example');
  await user(svc, 'taken@shop.example');
  const request = (challengeId: string, newEmail: string) => post(svc, '/api/v1/auth/email-change/request', { challengeId, newEmail }, me.accessToken);

  t.match(await request(await emailChallenge(svc, mails, me.accessToken, 'old@shop.example', 'email-change/request'), 'taken@shop.example'), { status: 409, body: { code: 'IKW-ACC-001' } });
  const asked = await request(await emailChallenge(svc, mails, me.accessToken, 'old@shop.example', 'email-change/request'), 'New@Shop.example');
  t.match(asked, { status: 202, body: { requestId: /^[0-9a-f-]{36}$/, newEmail: 'new@shop.example' } });
  t.match(lastMail(mails, 'old@shop.example'), /change of your e-mail address to new@shop\.example was asked/);
  t.match(await svc.request('GET', '/api/v1/auth/email-change', { key: me.accessToken }), { body: { pending: { requestId: asked.body.requestId, newEmail: 'new@shop.example' } } });
  const link = /(ec_[A-Za-z0-9_-]{43}\.[0-9a-f-]{36})/.exec(lastMail(mails, 'new@shop.example'))![1]!;
  t.match(await post(svc, '/api/v1/auth/email-change/confirm', { token: link }), { status: 200, body: { email: 'new@shop.example' } });
  t.match(await post(svc, '/api/v1/auth/email-change/confirm', { token: link }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'once');
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'old@shop.example', password: PASSWORD })).status, 401, 'the old address no longer signs in');
  const again = await signIn(svc, 'new@shop.example');
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: again.accessToken }), { body: { emailVerified: true } }, 'the link proved the new address');
  const freed = await svc.merchant();
  t.ok(await svc.member(freed, 'old@shop.example', PASSWORD), 'the old address is free for another account');

  const second = await post(svc, '/api/v1/auth/email-change/request', { challengeId: await emailChallenge(svc, mails, again.accessToken, 'new@shop.example', 'email-change/request'), newEmail: 'third@shop.example' }, again.accessToken);
  const secondLink = /(ec_[A-Za-z0-9_-]{43}\.[0-9a-f-]{36})/.exec(lastMail(mails, 'third@shop.example'))![1]!;
  t.match(await post(svc, '/api/v1/auth/email-change/cancel', { requestId: second.body.requestId }, again.accessToken), { status: 200, body: { canceled: true } });
  t.match(await post(svc, '/api/v1/auth/email-change/confirm', { token: secondLink }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'a canceled change');
  t.match(await post(svc, '/api/v1/auth/email-change/cancel', { requestId: second.body.requestId }, again.accessToken), { status: 404 });
});

t.test('phone change by SMS code; direct changes and personal-info/sensitive; a refused change uses nothing up', async (t) => {
  const { svc, mails } = await start(t);
  const me = await user(svc, 'phone@shop.example');
  await user(svc, 'taken@shop.example');
  const asked = await post(svc, '/api/v1/auth/phone-change/request', { challengeId: await emailChallenge(svc, mails, me.accessToken, 'phone@shop.example', 'phone-change/request'), newPhone: '+221 77 765 43 21' }, me.accessToken);
  t.match(asked, { status: 202, body: { newPhone: '+221777654321' } });
  const [sms] = await svc.system.outbox.kept({ channel: 'sms', recipient: '+221777654321' }, 1);
  const code = /code to confirm this phone number is (\d{6})/.exec(sms!.text!)![1]!;
  t.match(await post(svc, '/api/v1/auth/phone-change/verify', { requestId: asked.body.requestId, code: code === '000000' ? '111111' : '000000' }, me.accessToken), { status: 400, body: { code: 'IKW-ACC-005' } });
  t.match(await post(svc, '/api/v1/auth/phone-change/verify', { requestId: asked.body.requestId, code }, me.accessToken), { status: 200, body: { phone: '+221777654321' } });
  t.match(await svc.request('GET', '/api/v1/auth/me', { key: me.accessToken }), { body: { phone: '+221777654321' } });
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: me.accessToken }), { body: { phoneVerified: true } });

  const direct = await post(svc, '/api/v1/auth/change-phone', { challengeId: await emailChallenge(svc, mails, me.accessToken, 'phone@shop.example', 'change-phone'), newPhone: '+2250707070707' }, me.accessToken);
  t.match(direct, { status: 200 });
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: me.accessToken }), { body: { phoneVerified: false } }, 'a direct change is not a verified number');
  // A number changed at once is proved afterwards by a code texted to it.
  const proof = await post(svc, '/api/v1/auth/verify-phone/challenge', undefined, me.accessToken);
  t.match(proof, { status: 202, body: { challengeId: /^[0-9a-f-]{36}$/ } });
  const [proofSms] = await svc.system.outbox.kept({ channel: 'sms', recipient: '+2250707070707', purpose: 'mfa_code' }, 1);
  const proofCode = /(\d{6})/.exec(proofSms!.text!)![1]!;
  t.match(await post(svc, '/api/v1/auth/verify-phone', { challengeId: proof.body.challengeId, code: proofCode }, me.accessToken), { status: 200, body: { verified: true, address: '+2250707070707' } });
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: me.accessToken }), { body: { phoneVerified: true } }, 'the code proved the new number');

  const sensitive = await emailChallenge(svc, mails, me.accessToken, 'phone@shop.example', 'personal-info/sensitive');
  t.match(await post(svc, '/api/v1/auth/personal-info/sensitive', { challengeId: sensitive }, me.accessToken), { status: 400, body: { code: 'IKW-VAL-001' } });
  t.match(await post(svc, '/api/v1/auth/personal-info/sensitive', { challengeId: sensitive, newEmail: 'taken@shop.example', newPassword: 'brand new password' }, me.accessToken), { status: 409, body: { code: 'IKW-ACC-001' } });
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'phone@shop.example', password: PASSWORD })).status, 200, 'nothing changed, the password neither');
  t.match(
    await post(svc, '/api/v1/auth/personal-info/sensitive', { challengeId: sensitive, newEmail: 'moved@shop.example', newPassword: 'brand new password' }, me.accessToken),
    { status: 200 },
    'the challenge was not used up by the refusal',
  );
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'moved@shop.example', password: 'brand new password' })).status, 200);
  t.match(lastMail(mails, 'phone@shop.example'), /e-mail address, password of your Sika account were changed/, 'the old address is told');

  const direct2 = await post(svc, '/api/v1/auth/change-email', { challengeId: await emailChallenge(svc, mails, me.accessToken, 'moved@shop.example', 'change-email'), newEmail: 'direct@shop.example' }, me.accessToken);
  t.match(direct2, { status: 200, body: { changed: true } });
  t.match(await svc.request('GET', '/api/v1/auth/me', { key: me.accessToken }), { body: { email: 'direct@shop.example' } }, 'the address changed at once');
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'direct@shop.example', password: 'brand new password' })).status, 200, 'and signs in');
  t.equal((await post(svc, '/api/v1/auth/login', { email: 'moved@shop.example', password: 'brand new password' })).status, 401, 'the old one no longer does');
});

t.test('an organization that requires a second factor keeps its owners’ last one', async (t) => {
  const { svc, mails } = await start(t);
  const m = await svc.merchant('Strict shop');
  await svc.member(m, 'owner@strict.example', PASSWORD);
  await svc.member(m, 'viewer@strict.example', PASSWORD, 'viewer');
  const owner = (await signIn(svc, 'owner@strict.example')).accessToken;
  const viewer = (await signIn(svc, 'viewer@strict.example')).accessToken;
  t.match(await svc.request('GET', '/api/v1/merchant/team/settings', { key: owner }), { status: 200, body: { require_mfa: false } });
  t.match(await svc.request('PATCH', '/api/v1/merchant/team/settings', { key: viewer, body: { require_mfa: true } }), { status: 403, body: { code: 'IKW-ACC-002' } });
  t.match(await svc.request('PATCH', '/api/v1/merchant/team/settings', { key: owner, body: { require_mfa: true } }), { status: 200, body: { require_mfa: true } });

  const setup = await enableTotp(svc, owner, PASSWORD);
  const answered = async () => {
    const c = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'mfa/totp/disable' }, owner);
    svc.clock.advance(30_000);
    await post(svc, '/api/v1/auth/mfa/verify', { challengeId: c.body.challengeId, code: await appCode(setup.secret, svc) });
    return c.body.challengeId as string;
  };
  const challengeId = await answered();
  t.match(await post(svc, '/api/v1/auth/mfa/totp/disable', { challengeId }, owner), { status: 409, body: { code: 'IKW-ACC-010' } }, 'the last factor of an owner stays');
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: owner }), { body: { totpEnabled: true } });
  t.match(await svc.request('PATCH', '/api/v1/merchant/team/settings', { key: owner, body: { require_mfa: false } }), { status: 200 });
  t.match(await post(svc, '/api/v1/auth/mfa/totp/disable', { challengeId }, owner), { status: 200 }, 'the refused removal did not use the challenge up');
  t.match(mails.filter((m) => m.to.includes('owner@strict.example')).at(-1)!.raw, /authenticator app was removed/);
});
