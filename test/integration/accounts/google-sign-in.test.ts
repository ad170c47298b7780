/**
 * Sign-in with Google (docs/accounts.md, "Sign-in with Google") against a real OpenID provider on
 * loopback standing in for Google (test/support/accounts/oidc.ts), driven through its login and consent by
 * plain HTTP: sign-in of a linked user, link by verified e-mail, the refusals (unknown or
 * unverified e-mail, forged or replayed state, wrong nonce, foreign returnUrl), connect and
 * disconnect behind challenges, one Google account per user, and nothing without configuration.
 */
import t, { type Test } from '#tap';
import { startTestGoogle, type TestGoogle } from '../../support/accounts/oidc.js';
import { enableTotp, totpCode } from '../../support/accounts/second-factors.js';
import { startService, type TestService } from '../../support/system.js';
import { lastMail, mailedCode, startSmtp, type Mail } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';
const PUBLIC_URL = 'http://dashboard.sika.test';
const RETURN = `${PUBLIC_URL}/settings/after-google?tab=security`;
const CALLBACK = `${PUBLIC_URL}/api/v1/auth/google/callback`;

interface World {
  svc: TestService;
  google: TestGoogle;
  mails: Mail[];
}

async function start(t: Test): Promise<World> {
  const smtp = await startSmtp(t);
  const google = await startTestGoogle(t, CALLBACK);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url, PUBLIC_URL, GOOGLE_ISSUER: google.issuer, GOOGLE_CLIENT_ID: google.clientId, GOOGLE_CLIENT_SECRET: google.clientSecret } });
  return { svc, google, mails: smtp.mails };
}

const mailCode = mailedCode;
const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });

async function user(svc: TestService, email: string): Promise<string> {
  const m = await svc.merchant();
  await svc.member(m, email, PASSWORD);
  const res = await post(svc, '/api/v1/auth/login', { email, password: PASSWORD });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.accessToken as string;
}

/** A verified challenge of `purpose`, answered by the e-mailed code. */
async function challenge(w: World, token: string, email: string, purpose: string, verify = true): Promise<string> {
  const res = await post(w.svc, '/api/v1/auth/mfa/challenge', { purpose }, token);
  if (res.status !== 200) throw new Error(res.text);
  if (verify) {
    const verified = await post(w.svc, '/api/v1/auth/mfa/verify', { challengeId: res.body.challengeId, code: mailCode(w.mails, email) });
    if (verified.status !== 200) throw new Error(verified.text);
  }
  return res.body.challengeId as string;
}

/** The callback as the browser makes it: the provider's redirect, sent to the service under test. */
async function callback(w: World, redirect: URL) {
  return get(w.svc, `${redirect.pathname}${redirect.search}`);
}

/** A GET that does not follow the service's redirect (to the dashboard, which does not exist here). */
async function get(svc: TestService, path: string) {
  const res = await fetch(`${svc.baseUrl}${path}`, { redirect: 'manual' });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** login (or connect) → the provider as `sub` → the callback → the one-time code from the fragment. */
async function throughGoogle(w: World, sub: string, start: { path: string; body: unknown; key?: string } = { path: '/api/v1/auth/google/login', body: { returnUrl: RETURN } }, tamper: (url: URL) => void = () => {}) {
  const begun = await post(w.svc, start.path, start.body, start.key);
  if (begun.status !== 200) throw new Error(begun.text);
  const url = new URL(begun.body.authorizationUrl);
  tamper(url);
  const redirect = await w.google.authorize(url.toString(), sub);
  const back = await callback(w, redirect);
  if (back.status !== 303) throw new Error(`callback: ${back.status} ${back.text}`);
  const location = back.headers.get('location')!;
  const code = decodeURIComponent(/#googleCode=(.+)$/.exec(location)?.[1] ?? '');
  return { begun, redirect, location, code, exchangeKey: begun.body.exchangeKey as string };
}

/** The dashboard's exchange: the one-time code, with the key its own google/login or connect gave it. */
const exchange = (w: World, got: { code: string; exchangeKey: string }) => post(w.svc, '/api/v1/auth/google/exchange', { code: got.code, exchangeKey: got.exchangeKey });

async function events(svc: TestService, like: string) {
  return (await svc.system.knex('events').where('stream_id', 'like', like).orderBy('global_position').select('type', 'data')) as { type: string; data: Record<string, unknown> }[];
}

t.test('nothing works unconfigured: every route answers IKW-FED-001, and availability says so', async (t) => {
  const svc = await startService(t);
  const token = await user(svc, 'awa@shop.example');
  const uuid = '00000000-0000-4000-8000-000000000000';
  t.match(await svc.request('GET', '/api/v1/auth/google/availability'), { status: 200, body: { available: false } }, 'a sign-in page is told not to offer Google');
  t.match(await post(svc, '/api/v1/auth/google/login', { returnUrl: 'http://localhost:3000/' }), { status: 403, body: { code: 'IKW-FED-001' } });
  t.match(await svc.request('GET', '/api/v1/auth/google/callback?code=x&state=y'), { status: 403, body: { code: 'IKW-FED-001' } });
  t.match(await post(svc, '/api/v1/auth/google/exchange', { code: 'x', exchangeKey: 'y' }), { status: 403, body: { code: 'IKW-FED-001' } });
  t.match(await post(svc, '/api/v1/auth/google/connect', { returnUrl: 'http://localhost:3000/', challengeId: uuid }, token), { status: 403, body: { code: 'IKW-FED-001' } });
  t.match(await post(svc, '/api/v1/auth/google/disconnect', { challengeId: uuid }, token), { status: 403, body: { code: 'IKW-FED-001' } });
});

t.test('a verified Google address links its account and signs in; later the link (sub) signs in, whatever the address', async (t) => {
  const w = await start(t);
  t.match(await w.svc.request('GET', '/api/v1/auth/google/availability'), { status: 200, body: { available: true } }, 'configured: available, with no credential');
  await user(w.svc, 'awa@shop.example');
  w.google.accounts.set('g-awa', { email: 'Awa@Shop.example', email_verified: true });

  const first = await throughGoogle(w, 'g-awa');
  t.match(first.begun.body, { authorizationUrl: new RegExp(`^${w.google.issuer}/auth\\?`), expiresAt: '2026-01-01T00:10:00.000Z' });
  const sent = new URL(first.begun.body.authorizationUrl).searchParams;
  t.match(Object.fromEntries(sent), { client_id: w.google.clientId, redirect_uri: CALLBACK, response_type: 'code', code_challenge_method: 'S256', state: /\./, nonce: /./, code_challenge: /./ });
  t.ok(first.location.startsWith(`${RETURN}#googleCode=`), first.location);
  t.notMatch(first.location, /accessToken|refreshToken|rt_/, 'no token in the URL');

  // Login CSRF: someone sends their own finished attempt to another browser (a link, a page). That
  // browser's dashboard holds the key of its own attempt, not of this one: refused, nothing spent.
  const victims = await post(w.svc, '/api/v1/auth/google/login', { returnUrl: RETURN });
  t.match(await exchange(w, { code: first.code, exchangeKey: victims.body.exchangeKey }), { status: 400, body: { code: 'IKW-FED-002', param: 'exchangeKey' } }, 'an attempt finishes only in the browser that began it');
  t.match(await exchange(w, { code: first.code, exchangeKey: '' }), { status: 400, body: { code: 'IKW-VAL-001', param: 'exchangeKey' } });

  const signedIn = await exchange(w, first);
  t.match(signedIn, { status: 200, body: { accessToken: /\./, refreshToken: /^rt_/, user: { email: 'awa@shop.example' } } });
  t.match(await w.svc.request('GET', '/api/v1/auth/me', { key: signedIn.body.accessToken }), { status: 200, body: { email: 'awa@shop.example' } });
  t.match(await exchange(w, first), { status: 400, body: { code: 'IKW-FED-002', param: 'code' } }, 'the one-time code works once');
  t.match(await callback(w, first.redirect), { status: 400, body: { code: 'IKW-FED-002', param: 'state' } }, 'a replayed callback is refused');
  const linked = (await events(w.svc, 'user-%')).filter((e) => e.type.startsWith('user.google'));
  t.match(linked, [{ type: 'user.google_linked', data: { subject: 'g-awa', email: 'awa@shop.example', via: 'email', issuer: w.google.issuer } }]);
  t.match(lastMail(w.mails, 'awa@shop.example'), /Google account awa@shop\.example was connected/);
  const log = JSON.stringify(await events(w.svc, 'google_sign_in-%'));
  t.notOk(log.includes(first.code) || log.includes(sent.get('state')!), 'neither the state nor the one-time code is in the log');

  // The Google account's address changes: the link, not the address, finds the user.
  w.google.accounts.set('g-awa', { email: 'awa.new@gmail.example', email_verified: true });
  const again = await throughGoogle(w, 'g-awa');
  t.match(await exchange(w, again), { status: 200, body: { user: { email: 'awa@shop.example' } } });
  t.equal((await events(w.svc, 'user-%')).filter((e) => e.type === 'user.google_linked').length, 1, 'linked once');

  // The one-time code lives 2 minutes; the state 10.
  const late = await throughGoogle(w, 'g-awa');
  w.svc.clock.advance(2 * 60_000);
  t.match(await exchange(w, late), { status: 400, body: { code: 'IKW-FED-002' } });
  const slow = await post(w.svc, '/api/v1/auth/google/login', { returnUrl: RETURN });
  const redirect = await w.google.authorize(slow.body.authorizationUrl, 'g-awa');
  w.svc.clock.advance(10 * 60_000);
  t.match(await callback(w, redirect), { status: 400, body: { code: 'IKW-FED-002' } }, 'ten minutes to come back');
});

t.test('a user with an authenticator app still passes the second factor', async (t) => {
  const w = await start(t);
  const token = await user(w.svc, 'totp@shop.example');
  const { secret } = await enableTotp(w.svc, token, PASSWORD);
  const code = () => totpCode(secret, w.svc);
  w.google.accounts.set('g-totp', { email: 'totp@shop.example', email_verified: true });

  const answer = await exchange(w, await throughGoogle(w, 'g-totp'));
  t.match(answer, { status: 200, body: { mfaRequired: true, purpose: 'login', factor: 'totp', challengeId: /^[0-9a-f-]{36}$/ } });
  t.notOk(answer.body.accessToken, 'no tokens before the second factor');
  w.svc.clock.advance(30_000);
  t.match(await post(w.svc, '/api/v1/auth/mfa/verify', { challengeId: answer.body.challengeId, code: await code() }), { status: 200, body: { verified: true, accessToken: /\./ } });
});

t.test('refusals: unknown or unverified address, forged or replayed state, wrong nonce, foreign returnUrl, provider error', async (t) => {
  const w = await start(t);
  await user(w.svc, 'awa@shop.example');
  w.google.accounts.set('g-stranger', { email: 'nobody@elsewhere.example', email_verified: true });
  w.google.accounts.set('g-unverified', { email: 'awa@shop.example', email_verified: false });
  w.google.accounts.set('g-awa', { email: 'awa@shop.example', email_verified: true });

  const stranger = await throughGoogle(w, 'g-stranger');
  t.match(await exchange(w, stranger), { status: 403, body: { code: 'IKW-FED-006' } }, 'sign-up goes through register');
  t.match(await exchange(w, stranger), { status: 400, body: { code: 'IKW-FED-002' } }, 'the refusal is told once');
  const unverified = await throughGoogle(w, 'g-unverified');
  t.match(await exchange(w, unverified), { status: 403, body: { code: 'IKW-FED-005' } });
  t.equal((await events(w.svc, 'user-%')).filter((e) => e.type === 'user.google_linked').length, 0, 'nothing linked');

  // Forged and replayed states.
  const real = await post(w.svc, '/api/v1/auth/google/login', { returnUrl: RETURN });
  const redirect = await w.google.authorize(real.body.authorizationUrl, 'g-awa');
  const forged = new URL(redirect);
  const state = forged.searchParams.get('state')!;
  forged.searchParams.set('state', `${'A'.repeat(43)}${state.slice(43)}`);
  t.match(await callback(w, forged), { status: 400, body: { code: 'IKW-FED-002', param: 'state' } }, 'the right attempt with a forged secret');
  forged.searchParams.set('state', 'not-a-state');
  t.match(await callback(w, forged), { status: 400, body: { code: 'IKW-FED-002' } });
  forged.searchParams.delete('state');
  t.match(await callback(w, forged), { status: 400, body: { code: 'IKW-FED-002' } }, 'no state');
  const good = await callback(w, redirect);
  t.equal(good.status, 303, 'the forgeries did not spend the real attempt');
  t.match(await callback(w, redirect), { status: 400, body: { code: 'IKW-FED-002' } }, 'replayed');

  // The browser's authorization request altered to carry another nonce: the ID token does not match the attempt's.
  const nonce = await throughGoogle(w, 'g-awa', undefined, (url) => url.searchParams.set('nonce', 'a-nonce-of-someone-else'));
  t.match(await exchange(w, nonce), { status: 400, body: { code: 'IKW-FED-004' } }, 'wrong nonce');
  // And another PKCE challenge: the code cannot be exchanged with the verifier kept here.
  const pkce = await throughGoogle(w, 'g-awa', undefined, (url) => url.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'));
  t.match(await exchange(w, pkce), { status: 400, body: { code: 'IKW-FED-004' } }, 'wrong PKCE verifier');

  // Google says no (the user cancelled): the browser goes back, the exchange says why.
  const cancelled = await post(w.svc, '/api/v1/auth/google/login', { returnUrl: RETURN });
  const cancelledState = new URL(cancelled.body.authorizationUrl).searchParams.get('state')!;
  const denied = await get(w.svc, `/api/v1/auth/google/callback?error=access_denied&state=${encodeURIComponent(cancelledState)}`);
  t.equal(denied.status, 303);
  const deniedCode = decodeURIComponent(/#googleCode=(.+)$/.exec(denied.headers.get('location')!)![1]!);
  t.match(await exchange(w, { code: deniedCode, exchangeKey: cancelled.body.exchangeKey }), { status: 400, body: { code: 'IKW-FED-004' } });

  for (const returnUrl of ['https://evil.example/steal', 'http://dashboard.sika.test.evil.example/', 'javascript:alert(1)', `${PUBLIC_URL}/x#frag`, 'http://user:pw@dashboard.sika.test/', '/relative', 'https://dashboard.sika.test/']) {
    t.match(await post(w.svc, '/api/v1/auth/google/login', { returnUrl }), { status: 400, body: { code: 'IKW-FED-003', param: 'returnUrl' } }, returnUrl);
  }
  t.match(await post(w.svc, '/api/v1/auth/google/login', {}), { status: 400, body: { code: 'IKW-VAL-001' } });
  t.match(await post(w.svc, '/api/v1/auth/google/exchange', { code: 'x', exchangeKey: 'y' }), { status: 400, body: { code: 'IKW-FED-002' } });
  t.match(await post(w.svc, '/api/v1/auth/google/exchange', { code: 'x' }), { status: 400, body: { code: 'IKW-VAL-001', param: 'exchangeKey' } });
  t.match(await w.svc.request('GET', '/api/v1/auth/google/callback?state=a&state=b'), { status: 400 });
});

t.test('connect and disconnect behind their challenges; one Google account, one user', async (t) => {
  const w = await start(t);
  const bo = await user(w.svc, 'bo@shop.example');
  const carol = await user(w.svc, 'carol@shop.example');
  w.google.accounts.set('g-bo', { email: 'bo.personal@gmail.example', email_verified: true });
  const connect = (challengeId: string, key: string) => ({ path: '/api/v1/auth/google/connect', body: { returnUrl: RETURN, challengeId }, key });

  t.match(await post(w.svc, '/api/v1/auth/google/connect', { returnUrl: RETURN }, bo), { status: 400, body: { code: 'IKW-VAL-001', param: 'challengeId' } }, 'no challenge');
  const unverified = await challenge(w, bo, 'bo@shop.example', 'google/connect', false);
  t.match(await post(w.svc, '/api/v1/auth/google/connect', { returnUrl: RETURN, challengeId: unverified }, bo), { status: 400, body: { code: 'IKW-ACC-007' } }, 'not verified');
  const otherPurpose = await challenge(w, bo, 'bo@shop.example', 'google/disconnect');
  t.match(await post(w.svc, '/api/v1/auth/google/connect', { returnUrl: RETURN, challengeId: otherPurpose }, bo), { status: 400, body: { code: 'IKW-ACC-007' } }, 'a challenge of another purpose');
  const carols = await challenge(w, carol, 'carol@shop.example', 'google/connect');
  t.match(await post(w.svc, '/api/v1/auth/google/connect', { returnUrl: RETURN, challengeId: carols }, bo), { status: 404, body: { code: 'IKW-RES-001' } }, "another user's challenge");
  t.match(await post(w.svc, '/api/v1/auth/google/connect', { returnUrl: RETURN, challengeId: carols }, (await w.svc.sandboxMerchant()).key), { status: 403, body: { code: 'IKW-ACC-003' } }, 'an API key');
  t.match(await post(w.svc, '/api/v1/auth/google/connect', { returnUrl: 'https://evil.example/', challengeId: carols }, carol), { status: 400, body: { code: 'IKW-FED-003' } });

  const right = await challenge(w, bo, 'bo@shop.example', 'google/connect');
  const connected = await throughGoogle(w, 'g-bo', connect(right, bo));
  t.match(await exchange(w, connected), { status: 200, body: { connected: true, email: 'bo.personal@gmail.example' } });
  t.match(lastMail(w.mails, 'bo@shop.example'), /Google account bo\.personal@gmail\.example was connected/);
  t.match(await post(w.svc, '/api/v1/auth/google/connect', { returnUrl: RETURN, challengeId: right }, bo), { status: 400, body: { code: 'IKW-ACC-006' } }, 'the challenge works once');
  // Bo now signs in with the Google account, whose address is no account's.
  const signIn = await throughGoogle(w, 'g-bo');
  t.match(await exchange(w, signIn), { status: 200, body: { user: { email: 'bo@shop.example' } } });

  // Carol tries to connect the same Google account: 409.
  const carolsTurn = await throughGoogle(w, 'g-bo', connect(carols, carol));
  t.match(await exchange(w, carolsTurn), { status: 409, body: { code: 'IKW-FED-007' } });

  // Disconnect: without the right challenge, refused; with it, the account is free again.
  t.match(await post(w.svc, '/api/v1/auth/google/disconnect', {}, bo), { status: 400, body: { code: 'IKW-VAL-001' } });
  const wrong = await challenge(w, bo, 'bo@shop.example', 'google/connect');
  t.match(await post(w.svc, '/api/v1/auth/google/disconnect', { challengeId: wrong }, bo), { status: 400, body: { code: 'IKW-ACC-007' } });
  const carolDisconnect = await challenge(w, carol, 'carol@shop.example', 'google/disconnect');
  t.match(await post(w.svc, '/api/v1/auth/google/disconnect', { challengeId: carolDisconnect }, bo), { status: 404, body: { code: 'IKW-RES-001' } }, "another user's challenge");
  t.match(await post(w.svc, '/api/v1/auth/google/disconnect', { challengeId: carolDisconnect }, carol), { status: 409, body: { code: 'IKW-RES-002' } }, 'nothing to disconnect');
  t.match(await post(w.svc, '/api/v1/auth/google/disconnect', { challengeId: otherPurpose }, bo), { status: 200, body: { disconnected: true } });
  t.match(lastMail(w.mails, 'bo@shop.example'), /was disconnected/);
  const gone = await throughGoogle(w, 'g-bo');
  t.match(await exchange(w, gone), { status: 403, body: { code: 'IKW-FED-006' } }, 'the Google account no longer signs in to Bo');

  const carolAgain = await challenge(w, carol, 'carol@shop.example', 'google/connect');
  const now = await throughGoogle(w, 'g-bo', connect(carolAgain, carol));
  t.match(await exchange(w, now), { status: 200, body: { connected: true } }, 'free again: Carol connects it');
  t.match(await w.svc.request('GET', '/api/v1/auth/google', { key: carol }), { status: 200, body: { connected: true, email: /@/, connectedAt: /^20/ } });
  t.match(await w.svc.request('GET', '/api/v1/auth/google', { key: bo }), { status: 200, body: { connected: false, email: null } });
  t.match(
    (await events(w.svc, 'user-%')).filter((e) => e.type.startsWith('user.google')).map((e) => [e.type, e.data.via]),
    [
      ['user.google_linked', 'connect'],
      ['user.google_unlinked', undefined],
      ['user.google_linked', 'connect'],
    ],
  );
  t.match(
    (await events(w.svc, 'google_identity-%')).map((e) => e.type),
    ['google_identity.linked', 'google_identity.unlinked', 'google_identity.linked'],
  );
});
