/**
 * The dashboard's session (docs/accounts.md, "The dashboard's session"): with `Sika-Refresh-Cookie: 1`
 * the refresh token travels in an HttpOnly, SameSite=Strict cookie scoped to /api/v1/auth, never in
 * a body a page script could read; refresh takes the cookie only with that header; the cookie
 * rotates like the token; sign-out clears it; a second factor is still asked first.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { enableTotp, totpCode } from '../../support/accounts/second-factors.js';
import { startService } from '../../support/system.js';

const PASSWORD = 'correct horse battery';
const svc = await startService(t);
const COOKIE_MODE = { 'sika-refresh-cookie': '1' };

/** The cookie a Set-Cookie header sets, and its attributes. */
function cookieOf(res: { headers: Headers }) {
  const header = res.headers.get('set-cookie') ?? '';
  const [pair = '', ...attributes] = header.split(';').map((s) => s.trim());
  return { value: pair.startsWith('sika_refresh=') ? pair.slice('sika_refresh='.length) : null, attributes, header };
}

t.test('sign-in, refresh and sign-out with the refresh token in the cookie', async (t) => {
  const merchant = await svc.merchant('Cookie shop');
  await svc.member(merchant, 'awa@cookie.example', PASSWORD);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'awa@cookie.example', password: PASSWORD }, headers: COOKIE_MODE });
  assertOk(t, login);
  t.ok(login.body.accessToken, 'the access token in the body');
  t.notOk('refreshToken' in login.body, 'the refresh token not');
  const first = cookieOf(login);
  t.match(first.value, /^rt_/);
  t.same(first.attributes.sort(), ['HttpOnly', 'Max-Age=2592000', 'Path=/api/v1/auth', 'SameSite=Strict'].sort(), 'HttpOnly, SameSite=Strict, for the auth routes only, 30 days (no Secure over http)');
  t.equal(login.headers.get('cache-control'), 'no-store');

  const cookie = `sika_refresh=${first.value}`;
  assertError(t, await svc.request('POST', '/api/v1/auth/refresh', { body: {}, headers: { cookie } }), 'IKW-VAL-001', 'refreshToken');
  const refreshed = await svc.request('POST', '/api/v1/auth/refresh', { body: {}, headers: { ...COOKIE_MODE, cookie } });
  assertOk(t, refreshed);
  t.ok(refreshed.body.accessToken);
  t.notOk('refreshToken' in refreshed.body);
  const second = cookieOf(refreshed);
  t.not(second.value, first.value, 'rotated');
  assertOk(t, await svc.request('GET', '/api/v1/auth/me', { key: refreshed.body.accessToken }));

  const out = await svc.request('POST', '/api/v1/auth/logout', { key: refreshed.body.accessToken, headers: COOKIE_MODE });
  assertOk(t, out);
  t.match(cookieOf(out).header, /^sika_refresh=; .*Max-Age=0/, 'cleared');
  assertError(t, await svc.request('POST', '/api/v1/auth/refresh', { body: {}, headers: { ...COOKIE_MODE, cookie: `sika_refresh=${second.value}` } }), 'IKW-AUT-007');
});

t.test('without the header, answers are as before: the refresh token in the body, no cookie', async (t) => {
  const merchant = await svc.merchant('Body shop');
  await svc.member(merchant, 'ibou@body.example', PASSWORD);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'ibou@body.example', password: PASSWORD } });
  assertOk(t, login);
  t.match(login.body.refreshToken, /^rt_/);
  t.equal(login.headers.get('set-cookie'), null);
});

t.test('a user with a second factor gets the cookie only once it is proved', async (t) => {
  const merchant = await svc.merchant('Factor shop');
  await svc.member(merchant, 'fatou@factor.example', PASSWORD);
  const plain = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'fatou@factor.example', password: PASSWORD } });
  const { secret } = await enableTotp(svc, plain.body.accessToken, PASSWORD);
  svc.clock.advance(30_000);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'fatou@factor.example', password: PASSWORD }, headers: COOKIE_MODE });
  assertOk(t, login);
  t.equal(login.body.mfaRequired, true);
  t.equal(login.headers.get('set-cookie'), null, 'no session yet');
  const verified = await svc.request('POST', '/api/v1/auth/mfa/verify', { body: { challengeId: login.body.challengeId, code: await totpCode(secret, svc) }, headers: COOKIE_MODE });
  assertOk(t, verified);
  t.ok(verified.body.accessToken);
  t.notOk('refreshToken' in verified.body);
  t.match(cookieOf(verified).value, /^rt_/);
});

t.test('a sign-out that fails still clears the cookie', async (t) => {
  const merchant = await svc.merchant('Stale shop');
  await svc.member(merchant, 'binta@stale.example', PASSWORD);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'binta@stale.example', password: PASSWORD }, headers: COOKIE_MODE });
  svc.clock.advance(16 * 60_000); // the access token (15 minutes) has run out; the cookie's token has not
  const out = await svc.request('POST', '/api/v1/auth/logout', { key: login.body.accessToken, headers: COOKIE_MODE });
  assertError(t, out, 'IKW-AUT-007');
  t.match(cookieOf(out).header, /^sika_refresh=; Path=\/api\/v1\/auth; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/, 'removed all the same: no next page resumes the session from it');
  const garbage = await svc.request('POST', '/api/v1/auth/logout', { key: 'not.a.token', headers: COOKIE_MODE });
  t.equal(garbage.status, 401);
  t.match(cookieOf(garbage).header, /^sika_refresh=; .*Max-Age=0/, 'whatever was wrong with the token');
  const noHeader = await svc.request('POST', '/api/v1/auth/logout', { key: login.body.accessToken });
  t.equal(noHeader.headers.get('set-cookie'), null, 'a caller that did not ask for the cookie is not sent one');
});

t.test('over HTTPS (here: X-Forwarded-Proto from a trusted proxy) the cookie is Secure and named __Secure-sika_refresh; the old name is read for a transition', async (t) => {
  const https = await startService(t, { env: { TRUST_PROXY: '127.0.0.1' } });
  const merchant = await https.merchant('Secure shop');
  await https.member(merchant, 'awa@secure.example', PASSWORD);
  const viaProxy = { ...COOKIE_MODE, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' };
  const login = await https.request('POST', '/api/v1/auth/login', { body: { email: 'awa@secure.example', password: PASSWORD }, headers: viaProxy });
  assertOk(t, login);
  const [set, ...more] = login.headers.getSetCookie();
  t.match(set, /^__Secure-sika_refresh=rt_[\w.-]+; Path=\/api\/v1\/auth; Max-Age=2592000; HttpOnly; SameSite=Strict; Secure$/);
  t.same(more, [], 'one cookie');
  const token = /^__Secure-sika_refresh=(rt_[\w.-]+);/.exec(set!)![1]!;

  // A browser from before the prefix still holds the old name: read, and replaced by the new one.
  const refreshed = await https.request('POST', '/api/v1/auth/refresh', { body: {}, headers: { ...viaProxy, cookie: `sika_refresh=${token}` } });
  assertOk(t, refreshed);
  const [renewed, legacy] = refreshed.headers.getSetCookie();
  t.match(renewed, /^__Secure-sika_refresh=rt_[\w.-]+; .*; Secure$/, 'the new token under the new name');
  t.match(legacy, /^sika_refresh=; Path=\/api\/v1\/auth; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict; Secure$/, 'the old name removed');
  const next = /^__Secure-sika_refresh=(rt_[\w.-]+);/.exec(renewed!)![1]!;
  // The new name wins over a stale old one.
  assertOk(t, await https.request('POST', '/api/v1/auth/refresh', { body: {}, headers: { ...viaProxy, cookie: `sika_refresh=spent; __Secure-sika_refresh=${next}` } }));

  const out = await https.request('POST', '/api/v1/auth/logout', { key: 'not.a.token', headers: viaProxy });
  t.same(
    out.headers.getSetCookie().map((c) => c.split('=')[0]),
    ['__Secure-sika_refresh', 'sika_refresh'],
    'a sign-out, even a refused one, removes both names',
  );

  const direct = await https.request('POST', '/api/v1/auth/login', { body: { email: 'awa@secure.example', password: PASSWORD }, headers: COOKIE_MODE });
  t.match(direct.headers.getSetCookie()[0], /^sika_refresh=rt_[\w.-]+; .*SameSite=Strict$/, 'plain HTTP: the plain name, not Secure');
});

t.test('X-Forwarded-Proto from a peer that is not a trusted proxy does not make a request secure', async (t) => {
  const merchant = await svc.merchant('Spoof shop');
  await svc.member(merchant, 'awa@spoof.example', PASSWORD);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'awa@spoof.example', password: PASSWORD }, headers: { ...COOKIE_MODE, 'x-forwarded-proto': 'https' } });
  t.match(login.headers.getSetCookie()[0], /^sika_refresh=rt_[\w.-]+; .*SameSite=Strict$/);
});
