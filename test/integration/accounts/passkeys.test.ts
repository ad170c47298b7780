/**
 * Passkeys (docs/accounts.md, "Passkeys") with a software authenticator written for the tests (real
 * `none` attestations, ECDSA P-256 assertions): registration, passwordless sign-in, passkeys as
 * the strongest second factor, and what is refused: another origin, a replayed challenge, a
 * signature counter going backwards, another user's passkey.
 */
import t, { type Test } from '#tap';
import { SoftwareAuthenticator } from '../../support/accounts/authenticator.js';
import { passwordChallenge } from '../../support/accounts/second-factors.js';
import { startService, type TestService } from '../../support/system.js';
import { startSmtp } from '../../support/webhooks.js';

const PASSWORD = 'correct horse battery';

async function start(t: Test) {
  const smtp = await startSmtp(t);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url } });
  return { svc, mails: smtp.mails };
}
const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });

async function user(svc: TestService, email: string): Promise<string> {
  const m = await svc.merchant();
  await svc.member(m, email, PASSWORD);
  return (await post(svc, '/api/v1/auth/login', { email, password: PASSWORD })).body.accessToken;
}

function authenticator(svc: TestService): SoftwareAuthenticator {
  const url = new URL(svc.system.config.publicUrl);
  return new SoftwareAuthenticator(url.origin, url.hostname);
}

async function register(svc: TestService, token: string, device: SoftwareAuthenticator, nickname = 'Laptop') {
  const options = await post(svc, '/api/v1/auth/passkeys/registration/begin', { challengeId: await passwordChallenge(svc, token, 'passkeys/register', PASSWORD) }, token);
  const res = await post(svc, '/api/v1/auth/passkeys/registration/complete', { attestationResponse: device.register(options.body), nickname }, token);
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}

t.test('register a passkey; a wrong origin or a replayed registration is refused', async (t) => {
  const { svc, mails } = await start(t);
  const token = await user(svc, 'pk@shop.example');
  const device = authenticator(svc);
  const options = await post(svc, '/api/v1/auth/passkeys/registration/begin', { challengeId: await passwordChallenge(svc, token, 'passkeys/register', PASSWORD) }, token);
  t.match(options, { status: 200, body: { challenge: /./, rp: { id: new URL(svc.system.config.publicUrl).hostname, name: 'Sika' }, user: { name: 'pk@shop.example' }, attestation: 'none' } });
  t.match(await post(svc, '/api/v1/auth/passkeys/registration/complete', { attestationResponse: device.register(options.body, 'https://evil.example') }, token), { status: 400, body: { code: 'IKW-ACC-009', message: /origin/i } });
  const created = await post(svc, '/api/v1/auth/passkeys/registration/complete', { attestationResponse: device.register(options.body), nickname: 'Laptop' }, token);
  t.match(created, { status: 201, body: { id: device.id, object: 'passkey', nickname: 'Laptop', transports: ['internal'], lastUsedAt: null } });
  t.match(await post(svc, '/api/v1/auth/passkeys/registration/complete', { attestationResponse: device.register(options.body) }, token), { status: 400, body: { code: 'IKW-ACC-009' } }, 'a registration challenge is used once');
  t.match(mails.filter((m) => m.to.includes('pk@shop.example')).at(-1)!.raw, /passkey was added/);

  const list = await svc.request('GET', '/api/v1/auth/passkeys', { key: token });
  t.same(
    list.body.data.map((p: { id: string; nickname: string }) => [p.id, p.nickname]),
    [[device.id, 'Laptop']],
  );
  t.match(await svc.request('PATCH', `/api/v1/auth/passkeys/${device.id}`, { key: token, body: { nickname: 'Work laptop' } }), { status: 200, body: { nickname: 'Work laptop' } });
  const other = await user(svc, 'other@shop.example');
  t.match(await svc.request('PATCH', `/api/v1/auth/passkeys/${device.id}`, { key: other, body: { nickname: 'Mine' } }), { status: 404, body: { code: 'IKW-RES-001' } }, "another user's passkey");
  t.equal((await svc.request('GET', '/api/v1/auth/passkeys', { key: other })).body.data.length, 0);
  t.match(await svc.request('GET', '/api/v1/auth/mfa', { key: token }), { body: { passkeys: 1, strongestFactor: 'passkey' } });
});

t.test('passwordless sign-in: once per challenge; another origin and a counter going backwards are refused', async (t) => {
  const { svc } = await start(t);
  const token = await user(svc, 'nopass@shop.example');
  const device = authenticator(svc);
  await register(svc, token, device);

  const begin = async () => (await post(svc, '/api/v1/auth/passkeys/login/begin', undefined)).body;
  const first = await begin();
  t.match(first, { factor: 'passkey', purpose: 'login', options: { challenge: /./, allowCredentials: [] } });
  const assertion = device.assert(first.options.challenge);
  const signedIn = await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: assertion });
  t.match(signedIn, { status: 200, body: { verified: true, accessToken: /\./, refreshToken: /^rt_/, user: { email: 'nopass@shop.example' } } });
  t.match(await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: assertion }), { status: 400, body: { code: 'IKW-ACC-006' } }, 'a replayed assertion');

  const second = await begin();
  t.match(await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: device.assert(second.options.challenge, { origin: 'https://evil.example' }) }), { status: 400, body: { code: 'IKW-ACC-005', message: /origin/i } });
  t.match(
    await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: device.assert(second.options.challenge, { counter: 1 }) }),
    { status: 400, body: { code: 'IKW-ACC-005', message: /counter/i } },
    'the counter went backwards',
  );
  t.match(await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: device.assert(second.options.challenge, { counter: 10 }) }), { status: 200 }, 'the same challenge, answered right within its tries');
  t.match(await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: device.assert('bm90LWEtY2hhbGxlbmdl') }), { status: 404, body: { code: 'IKW-RES-001' } }, 'a challenge the service never made');
  const stranger = authenticator(svc);
  const third = await begin();
  t.match(await post(svc, '/api/v1/auth/passkeys/login/complete', { assertionResponse: stranger.assert(third.options.challenge) }), { status: 400, body: { code: 'IKW-ACC-005' } }, 'an unknown passkey');
});

t.test('a passkey is the strongest second factor: password sign-in asks for it; removal needs a fresh challenge', async (t) => {
  const { svc, mails } = await start(t);
  const token = await user(svc, 'strong@shop.example');
  const device = authenticator(svc);
  await register(svc, token, device);

  const login = await post(svc, '/api/v1/auth/login', { email: 'strong@shop.example', password: PASSWORD });
  t.match(login.body, { mfaRequired: true, factor: 'passkey', purpose: 'login', options: { allowCredentials: [{ id: device.id }] } });
  t.notOk(login.body.accessToken);
  t.match(await post(svc, '/api/v1/auth/mfa/verify', { challengeId: login.body.challengeId, code: '123456' }), { status: 409, body: { code: 'IKW-RES-002' } }, 'a passkey challenge takes no code');
  t.match(await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: device.assert(login.body.options.challenge) }), { status: 200, body: { accessToken: /\./ } });

  // A challenge asked of the passkey itself is answered by it, and verified for its operation.
  const asked = await post(svc, '/api/v1/auth/passkeys/assertion/begin', { purpose: 'change-phone' }, token);
  t.match(asked, { status: 200, body: { factor: 'passkey', purpose: 'change-phone', options: { allowCredentials: [{ id: device.id }] } } });
  t.match(await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: device.assert(asked.body.options.challenge) }), { status: 200, body: { challengeId: asked.body.challengeId, verified: true } });
  t.match(await post(svc, '/api/v1/auth/change-phone', { challengeId: asked.body.challengeId, newPhone: '+221771234567' }, token), { status: 200, body: { changed: true } }, 'and its operation takes it');

  // Removal behind a challenge the passkey answers; another user's passkey cannot answer it.
  const challenge = await post(svc, '/api/v1/auth/mfa/challenge', { purpose: 'passkeys/delete' }, token);
  t.match(challenge.body, { factor: 'passkey', purpose: 'passkeys/delete' });
  const otherToken = await user(svc, 'other@shop.example');
  const otherDevice = authenticator(svc);
  await register(svc, otherToken, otherDevice);
  t.match(await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: otherDevice.assert(challenge.body.options.challenge) }), { status: 400, body: { code: 'IKW-ACC-005' } });
  t.match(await svc.request('DELETE', `/api/v1/auth/passkeys/${device.id}`, { key: token, body: { challengeId: challenge.body.challengeId } }), { status: 400, body: { code: 'IKW-ACC-007' } }, 'not verified yet');
  t.match(await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: device.assert(challenge.body.options.challenge) }), { status: 200, body: { verified: true } });
  t.notOk((await post(svc, '/api/v1/auth/passkeys/assertion/complete', { assertionResponse: device.assert(challenge.body.options.challenge) })).body.accessToken, 'an operation challenge gives no tokens');
  t.match(await svc.request('DELETE', `/api/v1/auth/passkeys/${device.id}`, { key: otherToken, body: { challengeId: challenge.body.challengeId } }), { status: 404 }, "another user can't use the challenge");
  t.match(await svc.request('DELETE', `/api/v1/auth/passkeys/${device.id}`, { key: token, body: { challengeId: challenge.body.challengeId } }), { status: 200, body: { removed: true } });
  t.match(mails.filter((m) => m.to.includes('strong@shop.example')).at(-1)!.raw, /passkey was removed/);
  t.equal((await svc.request('GET', '/api/v1/auth/passkeys', { key: token })).body.data.length, 0);
  t.match((await post(svc, '/api/v1/auth/login', { email: 'strong@shop.example', password: PASSWORD })).body, { accessToken: /\./ }, 'no factor left: the password alone signs in');

  const explicit = await post(svc, '/api/v1/auth/passkeys/assertion/begin', { purpose: 'change-email' }, token);
  t.match(explicit, { status: 409, body: { code: 'IKW-RES-002' } }, 'no passkey to answer with');
});
