/**
 * The factor rule (docs/accounts.md): every way into a session (password, magic link, invitation,
 * Google, passkey) asks a user with a second factor for it, for a user with an authenticator app
 * and for one with a passkey; adding a factor needs a fresh proof and ends the sessions that never
 * proved one, which then can neither refresh nor switch; answers to a user's second factor are
 * limited across all their challenges.
 */
import t, { type Test } from '#tap';
import { SoftwareAuthenticator } from '../../support/accounts/authenticator.js';
import { startTestGoogle, type TestGoogle } from '../../support/accounts/oidc.js';
import { enableTotp, passwordChallenge, registerPasskey, totpCode } from '../../support/accounts/second-factors.js';
import { startService, type TestService } from '../../support/system.js';
import { startSmtp, type Mail } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const PUBLIC_URL = 'http://dashboard.sika.test';
const RETURN = `${PUBLIC_URL}/after-google`;

interface World {
  svc: TestService;
  google: TestGoogle;
  mails: Mail[];
}

async function start(t: Test): Promise<World> {
  const smtp = await startSmtp(t);
  const google = await startTestGoogle(t, `${PUBLIC_URL}/api/v1/auth/google/callback`);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url, PUBLIC_URL, GOOGLE_ISSUER: google.issuer, GOOGLE_CLIENT_ID: google.clientId, GOOGLE_CLIENT_SECRET: google.clientSecret } });
  return { svc, google, mails: smtp.mails };
}

const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });

function lastMail(mails: Mail[], to: string): string {
  const mail = mails.filter((m) => m.to.includes(to)).at(-1);
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}

async function signIn(svc: TestService, email: string) {
  const res = await post(svc, '/api/v1/auth/login', { email, password: PASSWORD });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

/** A member of a new merchant's organization, signed in (no second factor yet). */
async function member(svc: TestService, email: string) {
  const merchant = await svc.merchant();
  await svc.member(merchant, email, PASSWORD);
  return { merchant, session: await signIn(svc, email) };
}

/** Each way into a session, as far as its first step: what the service answers then. */
function paths(w: World, email: string) {
  const { svc, mails } = w;
  return {
    password: () => post(svc, '/api/v1/auth/login', { email, password: PASSWORD }),
    magicLink: async () => {
      await post(svc, '/api/v1/auth/magic-link', { email });
      const token = /(ml_[A-Za-z0-9_-]{43}\.[0-9a-f-]{36})/.exec(lastMail(mails, email))![1];
      return post(svc, '/api/v1/auth/magic-link/verify', { token });
    },
    /** Another organization invites the user, who accepts with the link alone; its id too. */
    invitation: async () => {
      const inviter = await member(svc, `owner-${Math.random().toString(36).slice(2)}@elsewhere.example`);
      const invited = await post(svc, '/api/v1/merchant/team/invitations', { email, role: 'viewer' }, inviter.session.accessToken);
      if (invited.status !== 201) throw new Error(invited.text);
      const token = /(inv_[A-Za-z0-9_-]{43}\.[0-9a-f-]{36})/.exec(lastMail(mails, email))![1];
      return { answer: await post(svc, '/api/v1/invitations/accept', { token }), organizationId: inviter.session.user.organizationId as string };
    },
    google: async (sub: string) => {
      w.google.accounts.set(sub, { email, email_verified: true });
      const begun = await post(svc, '/api/v1/auth/google/login', { returnUrl: RETURN });
      const redirect = await w.google.authorize(begun.body.authorizationUrl, sub);
      const back = await fetch(`${svc.baseUrl}${redirect.pathname}${redirect.search}`, { redirect: 'manual' });
      const code = decodeURIComponent(/#googleCode=(.+)$/.exec(back.headers.get('location') ?? '')?.[1] ?? '');
      return post(svc, '/api/v1/auth/google/exchange', { code, exchangeKey: begun.body.exchangeKey });
    },
  };
}

t.test('a user with an authenticator app: password, magic link, invitation and Google all stop at the second factor', async (t) => {
  const w = await start(t);
  const { svc } = w;
  const email = 'totp@shop.example';
  const { session } = await member(svc, email);
  const { secret } = await enableTotp(svc, session.accessToken, PASSWORD);
  const go = paths(w, email);
  /** Answers a login challenge with the app's next code: the tokens. */
  const finish = async (challengeId: string) => {
    svc.clock.advance(30_000);
    const done = await post(svc, '/api/v1/auth/mfa/verify', { challengeId, code: await totpCode(secret, svc) });
    t.match(done, { status: 200, body: { verified: true, accessToken: /\./, refreshToken: /^rt_/ } });
    return done.body;
  };

  const stopped = { status: 200, body: { mfaRequired: true, purpose: 'login', factor: 'totp', challengeId: /^[0-9a-f-]{36}$/ } };
  for (const [name, begin] of [
    ['password', go.password],
    ['magic link', go.magicLink],
    ['Google', () => go.google('g-totp')],
  ] as const) {
    const answer = await begin();
    t.match(answer, stopped, name);
    t.notOk(answer.body.accessToken, `${name}: no tokens before the second factor`);
    await finish(answer.body.challengeId);
  }

  // An invitation joins at once, but the session (in the inviting organization) waits for the factor.
  const { answer, organizationId } = await go.invitation();
  t.match(answer, stopped, 'invitation');
  t.notOk(answer.body.accessToken);
  const joined = await finish(answer.body.challengeId);
  t.equal(joined.user.organizationId, organizationId, 'the session starts in the organization that invited');
});

t.test('a user with a passkey: every path asks for it; a passkey alone signs in only when it verified its user', async (t) => {
  const w = await start(t);
  const { svc } = w;
  const email = 'passkey@shop.example';
  const { session } = await member(svc, email);
  const url = new URL(svc.system.config.publicUrl);
  const device = new SoftwareAuthenticator(url.origin, url.hostname);
  await registerPasskey(svc, session.accessToken, PASSWORD, device);
  const go = paths(w, email);

  const stopped = { status: 200, body: { mfaRequired: true, purpose: 'login', factor: 'passkey', options: { allowCredentials: [{ id: device.id }] } } };
  const finish = async (options: { challenge: string }) => {
    const done = await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: device.assert(options.challenge) });
    t.match(done, { status: 200, body: { verified: true, accessToken: /\./ } });
    return done.body;
  };
  for (const [name, begin] of [
    ['password', go.password],
    ['magic link', go.magicLink],
    ['Google', () => go.google('g-passkey')],
  ] as const) {
    const answer = await begin();
    t.match(answer, stopped, name);
    t.notOk(answer.body.accessToken, `${name}: no tokens before the passkey`);
    await finish(answer.body.options);
  }
  const { answer, organizationId } = await go.invitation();
  t.match(answer, stopped, 'invitation');
  t.equal((await finish(answer.body.options)).user.organizationId, organizationId);

  // Passwordless: the passkey is both factors only if the authenticator verified its user.
  const begun = (await post(svc, '/api/v1/auth/passkeys/login/begin', undefined)).body;
  t.match(begun.options, { userVerification: 'required' });
  t.match(
    await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: device.assert(begun.options.challenge, { userVerified: false }) }),
    { status: 400, body: { code: 'IKW-ACC-005', message: /verif/i } },
    'touched without its PIN',
  );
  t.match(await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: device.assert(begun.options.challenge) }), { status: 200, body: { accessToken: /\./ } });
  // As a second factor after the password, a touch is enough (the password was the other factor).
  const login = await go.password();
  t.match(await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: device.assert(login.body.options.challenge, { userVerified: false }) }), { status: 200, body: { accessToken: /\./ } });
});

t.test('adding a factor needs a fresh proof: the password when there is none, else a factor the user has', async (t) => {
  const w = await start(t);
  const { svc } = w;
  const { session } = await member(svc, 'thief-target@shop.example');
  const stolen = session.accessToken as string;

  // An access token alone adds nothing.
  t.match(await post(svc, '/api/v1/auth/mfa/totp/setup', undefined, stolen), { status: 400, body: { code: 'IKW-VAL-001', param: 'challengeId' } });
  t.match(await post(svc, '/api/v1/auth/passkeys/registration/begin', undefined, stolen), { status: 400, body: { code: 'IKW-VAL-001', param: 'challengeId' } });
  const asked = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'mfa/totp/setup' }, stolen);
  t.match(asked, { status: 200, body: { factor: 'password', purpose: 'mfa/totp/setup' } }, 'a user with no factor proves the password');
  t.match(await post(svc, '/api/v1/auth/mfa/totp/setup', { challengeId: asked.body.challengeId }, stolen), { status: 400, body: { code: 'IKW-ACC-007' } }, 'not answered yet');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: asked.body.challengeId, code: 'a wrong password' }), { status: 400, body: { code: 'IKW-ACC-005', message: /password is wrong/ } });
  const email = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'change-email' }, stolen);
  t.match(email.body, { factor: 'email' }, 'other purposes keep the e-mailed code');
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: email.body.challengeId, code: PASSWORD }), { status: 400, body: { code: 'IKW-ACC-005' } }, 'the password does not answer an e-mailed challenge');
  const other = await passwordChallenge(svc, stolen, 'passkeys/register', PASSWORD);
  t.match(await post(svc, '/api/v1/auth/mfa/totp/setup', { challengeId: other }, stolen), { status: 400, body: { code: 'IKW-ACC-007' } }, 'a challenge of another purpose');
  const late = await passwordChallenge(svc, stolen, 'mfa/totp/setup', PASSWORD);
  svc.clock.advance(5 * 60_000);
  t.match(await post(svc, '/api/v1/auth/mfa/totp/setup', { challengeId: late }, stolen), { status: 400, body: { code: 'IKW-ACC-006' } }, 'the proof is fresh: five minutes');

  // Two sessions: the one that adds the app proves it by doing so; the other never did and ends.
  const other1 = await signIn(svc, 'thief-target@shop.example');
  const mine = await signIn(svc, 'thief-target@shop.example');
  const { secret } = await enableTotp(svc, mine.accessToken, PASSWORD);
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: mine.accessToken })).status, 200, 'the session that added the factor goes on');
  t.equal((await post(svc, '/api/v1/auth/refresh', { refreshToken: mine.refreshToken })).status, 200);
  t.match(await svc.request('GET', '/api/v1/auth/me', { key: other1.accessToken }), { status: 401, body: { code: 'IKW-AUT-007' } }, 'the other session ended');
  t.match(await post(svc, '/api/v1/auth/refresh', { refreshToken: other1.refreshToken }), { status: 401, body: { code: 'IKW-AUT-007' } });
  t.match(await post(svc, '/api/v1/auth/switch-merchant', { merchantId: session.user.merchantId }, other1.accessToken), { status: 401 }, 'nor can it move');
  const events = await svc.system.knex('events').where('stream_id', 'like', 'user-%').where('type', 'user.session_revoked').select('data');
  t.ok(events.some((e: { data: { reason: string } }) => e.data.reason === 'second_factor_added'));

  // With an app, adding a passkey is answered by the app, never by the password.
  const withApp = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'passkeys/register' }, mine.accessToken);
  t.match(withApp.body, { factor: 'totp' });
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: withApp.body.challengeId, code: PASSWORD }), { status: 400, body: { code: 'IKW-ACC-005' } });
  svc.clock.advance(30_000);
  t.equal((await post(svc, '/api/v1/auth/mfa/verify', { challengeId: withApp.body.challengeId, code: await totpCode(secret, svc) })).status, 200);
  t.match(await post(svc, '/api/v1/auth/passkeys/registration/begin', { challengeId: withApp.body.challengeId }, mine.accessToken), { status: 200, body: { challenge: /./ } });
  t.match(await post(svc, '/api/v1/auth/passkeys/registration/begin', { challengeId: withApp.body.challengeId }, mine.accessToken), { status: 400, body: { code: 'IKW-ACC-006' } }, 'once');
});

t.test('second-factor guesses are counted per user across challenges: 429 with Retry-After, a right answer resets', async (t) => {
  const w = await start(t);
  const { svc } = w;
  const email = 'guessed@shop.example';
  const { session } = await member(svc, email);
  const { secret } = await enableTotp(svc, session.accessToken, PASSWORD);
  const wrong = async () => (Number(await totpCode(secret, svc)) + 1).toString().padStart(6, '0').slice(-6);
  const guess = async (challengeId: string, code?: string) => post(svc, '/api/v1/auth/mfa/verify', { challengeId, code: code ?? (await wrong()) });
  const fresh = async () => (await post(svc, '/api/v1/auth/login', { email, password: PASSWORD })).body.challengeId as string;

  // Nine wrong answers over fresh challenges, then a right one: the count starts again.
  for (let i = 0; i < 9; i++) t.match(await guess(await fresh()), { status: 400, body: { code: 'IKW-ACC-005' } });
  svc.clock.advance(30_000);
  t.equal((await guess(await fresh(), await totpCode(secret, svc))).status, 200, 'a right answer resets the count');

  // Ten wrong answers, two per challenge: each challenge has tries left, the user does not.
  for (let i = 0; i < 5; i++) {
    const id = await fresh();
    t.match(await guess(id), { status: 400, body: { code: 'IKW-ACC-005' } });
    t.match(await guess(id), { status: 400, body: { code: 'IKW-ACC-005' } });
  }
  const blocked = await guess(await fresh(), await totpCode(secret, svc));
  t.match(blocked, { status: 429, body: { code: 'IKW-LIM-001' } }, 'over the limit, even the right code is not checked');
  t.ok(Number(blocked.headers.get('retry-after')) > 0, 'Retry-After');
  const url = new URL(svc.system.config.publicUrl);
  t.match(await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'change-email' }, session.accessToken), { status: 200 }, 'asking is not answering');

  // Parallel guesses cannot slip past: each is counted before it is checked.
  svc.clock.advance(15 * 60_000);
  const id = await fresh();
  const burst = await Promise.all(Array.from({ length: 16 }, () => guess(id, '000000')));
  t.ok(burst.filter((r) => r.status === 429).length >= 6, `at most ten of sixteen parallel guesses are checked (${burst.map((r) => r.status).join(',')})`);

  // A passkey's failed assertions count for its user too.
  svc.clock.advance(15 * 60_000);
  const device = new SoftwareAuthenticator(url.origin, url.hostname);
  const stranger = new SoftwareAuthenticator(url.origin, url.hostname);
  svc.clock.advance(30_000);
  const token = (await guess(await fresh(), await totpCode(secret, svc))).body.accessToken as string;
  const proof = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'passkeys/register' }, token);
  svc.clock.advance(30_000);
  t.equal((await guess(proof.body.challengeId, await totpCode(secret, svc))).status, 200);
  const options = await post(svc, '/api/v1/auth/passkeys/registration/begin', { challengeId: proof.body.challengeId }, token);
  t.equal((await post(svc, '/api/v1/auth/passkeys/registration/complete', { attestationResponse: device.register(options.body) }, token)).status, 201);
  for (let i = 0; i < 10; i++) {
    const login = await post(svc, '/api/v1/auth/login', { email, password: PASSWORD });
    t.match(await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: stranger.assert(login.body.options.challenge) }), { status: 400 });
  }
  const last = await post(svc, '/api/v1/auth/login', { email, password: PASSWORD });
  t.match(await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: device.assert(last.body.options.challenge) }), { status: 429, body: { code: 'IKW-LIM-001' } });
});
