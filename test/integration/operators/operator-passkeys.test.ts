/**
 * Operators' passkeys (docs/operator.md, "Passkeys"): registered by a signed-in operator behind a
 * code of their authenticator app, then answering a sign-in in place of the code; a forged or
 * replayed answer, another operator's passkey and a counter that went back are refused and open no
 * session; removed, a passkey no longer signs in. Answered by a software authenticator that signs
 * as a platform authenticator does.
 */
import t from '#tap';
import { SoftwareAuthenticator } from '../../support/accounts/authenticator.js';
import { OPERATOR_PASSWORD, operatorSession, totpCode, type TestOperator } from '../../support/operators.js';
import { startService } from '../../support/system.js';

const svc = await startService(t);
const { origin, hostname } = new URL(svc.publicUrl);

const post = (path: string, body: unknown, operator?: TestOperator) => svc.request('POST', path, { body, ...(operator ? { key: operator.token } : {}) });

/** Registers a new software passkey for the operator (the app's code first); returns it. */
async function register(operator: TestOperator, nickname?: string): Promise<SoftwareAuthenticator> {
  svc.clock.advance(30_000);
  const begun = await post('/api/v1/operator/me/passkeys/registration', { code: await totpCode(svc, operator.totpSecret) }, operator);
  if (begun.status !== 200) throw new Error(begun.text);
  const authenticator = new SoftwareAuthenticator(origin, hostname);
  const added = await post('/api/v1/operator/me/passkeys', { response: authenticator.register(begun.body.options), ...(nickname ? { nickname } : {}) }, operator);
  if (added.status !== 201) throw new Error(added.text);
  return authenticator;
}

const signIn = (operator: TestOperator) => post('/api/v1/operator/auth/sign-in', { email: operator.email, password: OPERATOR_PASSWORD });

t.test('registered behind the app, a passkey answers a sign-in in place of the code', async (t) => {
  const operator = await operatorSession(svc, 'reviewer');
  t.match(await post('/api/v1/operator/me/passkeys/registration', { code: '000000' }, operator), { status: 400, body: { code: 'IKW-OPR-004' } }, 'a session alone adds no passkey: the app’s code first');
  t.match(await svc.request('GET', '/api/v1/operator/me/passkeys', {}), { status: 404 }, 'no session: the route is hidden');

  const before = await signIn(operator);
  t.notOk(before.body.passkeyOptions, 'without a passkey, a sign-in offers none');
  const authenticator = await register(operator, 'Work laptop');
  const listed = await svc.request('GET', '/api/v1/operator/me/passkeys', { key: operator.token });
  t.match(listed.body.data, [{ id: authenticator.id, nickname: 'Work laptop', lastUsed: null }]);

  const started = await signIn(operator);
  t.match(started.body, { next: 'verify_totp', passkeyOptions: { challenge: /.+/, allowCredentials: [{ id: authenticator.id }] } }, 'a sign-in now offers the passkey');
  const answer = authenticator.assert(started.body.passkeyOptions.challenge);
  const session = await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: started.body.challengeToken, passkey: answer });
  t.match(session, { status: 200, body: { sessionToken: /\./, operator: { id: operator.operatorId } } }, 'the passkey opened the session');
  t.equal((await svc.request('GET', '/api/v1/operator/me', { key: session.body.sessionToken })).status, 200);
  t.match((await svc.request('GET', '/api/v1/operator/me/passkeys', { key: operator.token })).body.data, [{ lastUsed: /T/ }], 'its last use is kept');

  const again = await signIn(operator);
  t.match(await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken, passkey: answer }), { status: 400, body: { code: 'IKW-OPR-010' } }, 'a replayed answer (another challenge) is refused');
  t.match(
    await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken, passkey: authenticator.assert(again.body.passkeyOptions.challenge, { counter: 1 }) }),
    { status: 400, body: { code: 'IKW-OPR-010' } },
    'a counter that went back (a copied key) is refused',
  );
  t.match(
    await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken, passkey: authenticator.assert(again.body.passkeyOptions.challenge, { origin: 'https://evil.example' }) }),
    { status: 400, body: { code: 'IKW-OPR-010' } },
    'an answer for another site is refused',
  );
  t.match(await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken }), { status: 400, body: { code: /^IKW-VAL-/ } }, 'neither code nor passkey: invalid');
  svc.clock.advance(30_000);
  t.match(await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken, code: await totpCode(svc, operator.totpSecret) }), { status: 200 }, 'the app still works');
});

t.test("another operator's passkey opens no session; a removed one no longer signs in", async (t) => {
  const ada = await operatorSession(svc, 'risk');
  const bea = await operatorSession(svc, 'finance');
  const adas = await register(ada);
  const beas = await register(bea);
  const started = await signIn(ada);
  t.match(
    await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: started.body.challengeToken, passkey: beas.assert(started.body.passkeyOptions.challenge) }),
    { status: 400, body: { code: 'IKW-OPR-010' } },
    "Bea's passkey does not sign Ada in",
  );
  t.match(await svc.request('DELETE', `/api/v1/operator/me/passkeys/${encodeURIComponent(adas.id)}`, { key: bea.token }), { status: 404, body: { code: 'IKW-RES-001' } }, "Bea cannot remove Ada's passkey");
  t.match(await svc.request('DELETE', `/api/v1/operator/me/passkeys/${encodeURIComponent(adas.id)}`, { key: ada.token }), { status: 200, body: { removed: true } });
  const after = await signIn(ada);
  t.notOk(after.body.passkeyOptions, 'with none left, a sign-in offers none');
  t.match(await post('/api/v1/operator/auth/sign-in/complete', { challengeToken: after.body.challengeToken, passkey: adas.assert('x') }), { status: 400, body: { code: 'IKW-OPR-010' } }, 'the removed passkey signs nothing');
});

t.test('a registration expires after 5 minutes; one never begun is refused', async (t) => {
  const operator = await operatorSession(svc, 'admin');
  svc.clock.advance(30_000);
  const begun = await post('/api/v1/operator/me/passkeys/registration', { code: await totpCode(svc, operator.totpSecret) }, operator);
  svc.clock.advance(5 * 60_000 + 1);
  const late = new SoftwareAuthenticator(origin, hostname);
  t.match(await post('/api/v1/operator/me/passkeys', { response: late.register(begun.body.options) }, operator), { status: 400, body: { code: 'IKW-OPR-010' } }, 'expired');
  const authenticator = await register(operator);
  t.match(await post('/api/v1/operator/me/passkeys', { response: authenticator.register({ challenge: 'bm90IGJlZ3Vu', user: { id: 'x' } }) }, operator), { status: 400, body: { code: 'IKW-OPR-010' } }, 'a registration not begun');
});
