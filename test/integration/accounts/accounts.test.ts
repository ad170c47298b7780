/**
 * The account half of /api/v1/auth and /api/v1/organizations (docs/accounts.md): the current user,
 * sessions (list, sign out, revoke one, revoke the others), switching merchant and organization,
 * roles as scopes, and what account routes refuse.
 */
import t from '#tap';
import { ACCESS_TOKEN_TTL_S } from '#packages/families/accounts/user/tokens.js';
import { REFRESH_TOKEN_TTL_MS } from '#packages/families/accounts/user/sessions.js';
import { startService, type TestService } from '../../support/system.js';

const PASSWORD = 'correct horse battery';

async function signIn(svc: TestService, email: string, userAgent = 'tests/1.0') {
  const res = await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD }, headers: { 'user-agent': userAgent } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.text}`);
  return res.body as { accessToken: string; refreshToken: string; user: { id: string; organizationId: string; merchantId: string; role: string } };
}

t.test('me: the profile, and where this session acts', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant('Boutique Dakar');
  const userId = await svc.member(m, 'Awa@Boutique.example', PASSWORD);
  const session = await signIn(svc, 'awa@boutique.example');
  t.match(session.user, { id: userId, email: 'awa@boutique.example', name: 'Awa', merchantId: m.id, role: 'owner' });

  const me = await svc.request('GET', '/api/v1/auth/me', { key: session.accessToken });
  t.equal(me.status, 200);
  t.match(me.body, { id: userId, email: 'awa@boutique.example', name: 'Awa', phone: null, merchantId: m.id, organizationId: session.user.organizationId, role: 'owner' });
  t.same(me.body.organizations, [{ id: session.user.organizationId, displayName: 'Boutique Dakar', role: 'owner', merchantIds: [m.id] }], 'the organization made for the merchant, named after it');
  t.same(me.body.scopes, ['*'], "an owner's session may do everything");
  await svc.member(m, 'vera@boutique.example', PASSWORD, 'viewer');
  const viewer = await signIn(svc, 'vera@boutique.example');
  const seen = (await svc.request('GET', '/api/v1/auth/me', { key: viewer.accessToken })).body;
  t.match(seen, { role: 'viewer', scopes: ['*.read', 'support.write'] }, "a viewer's: its role's scopes, so a page can leave out what it cannot do");

  t.match(await svc.request('GET', '/api/v1/auth/me', { key: m.api_keys.sandbox }), { status: 403, body: { code: 'IKW-ACC-003' } }, 'an API key is not a user');
  t.match(await svc.request('GET', '/api/v1/auth/me'), { status: 401, body: { code: 'IKW-AUT-001' } });
  // Neither an API key nor a valid token is no credential (401), so a dashboard signs in again.
  const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${session.accessToken.split('.')[1]}.`;
  for (const bearer of ['abc', unsigned, `${session.accessToken.slice(0, -4)}AAAA`]) {
    t.match(await svc.request('GET', '/api/v1/auth/me', { key: bearer }), { status: 401, body: { code: 'IKW-AUT-007' } }, `bearer ${bearer.slice(0, 12)}…`);
  }
});

t.test('sessions: listed with their device, signed out, revoked one by one or all but this one', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  await svc.member(m, 'owner@shop.example', PASSWORD);
  const laptop = await signIn(svc, 'owner@shop.example', 'Laptop/1');
  svc.clock.advance(1000);
  const phone = await signIn(svc, 'owner@shop.example', 'Phone/2');
  svc.clock.advance(1000);
  const tablet = await signIn(svc, 'owner@shop.example', 'Tablet/3');

  const list = await svc.request('GET', '/api/v1/auth/sessions', { key: phone.accessToken });
  t.equal(list.status, 200);
  t.same(
    list.body.data.map((s: { userAgent: string }) => s.userAgent),
    ['Tablet/3', 'Phone/2', 'Laptop/1'],
    'newest first',
  );
  t.same(
    list.body.data.map((s: { current: boolean }) => s.current),
    [false, true, false],
    'the caller’s session is marked',
  );
  t.match(list.body.data[0], { ip: /127\.0\.0\.1/, merchantId: m.id, expiresAt: new Date(svc.clock.now().getTime() + REFRESH_TOKEN_TTL_MS).toISOString() });
  const laptopId = list.body.data[2].id as string;

  // Revoke one: its access token and refresh token stop at once.
  t.match(await svc.request('DELETE', `/api/v1/auth/sessions/${laptopId}`, { key: phone.accessToken }), { status: 200, body: { id: laptopId, revoked: true } });
  t.match(await svc.request('GET', '/api/v1/balance', { key: laptop.accessToken }), { status: 401, body: { code: 'IKW-AUT-007' } });
  t.match(await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: laptop.refreshToken } }), { status: 401, body: { code: 'IKW-AUT-007' } });
  t.match(await svc.request('DELETE', `/api/v1/auth/sessions/${laptopId}`, { key: phone.accessToken }), { status: 404, body: { code: 'IKW-RES-001' } }, 'a revoked session is gone');

  // Revoke the others: the tablet ends, the phone (the caller) goes on.
  t.match(await svc.request('POST', '/api/v1/auth/sessions/revoke-others', { key: phone.accessToken }), { status: 200, body: { revoked: 1 } });
  t.equal((await svc.request('GET', '/api/v1/balance', { key: tablet.accessToken })).status, 401);
  t.equal((await svc.request('GET', '/api/v1/balance', { key: phone.accessToken })).status, 200);
  t.match(await svc.request('POST', '/api/v1/auth/sessions/revoke-others', { key: phone.accessToken }), { status: 200, body: { revoked: 0 } }, 'nothing left to revoke');

  // Sign out: this session ends too.
  t.match(await svc.request('POST', '/api/v1/auth/logout', { key: phone.accessToken }), { status: 200, body: { signedOut: true } });
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: phone.accessToken })).status, 401);
  t.equal((await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: phone.refreshToken } })).status, 401);

  // Every change is in the user's stream with where it came from.
  const events = await svc.system.knex('events').where('stream_id', 'like', 'user-%').orderBy('global_position').select('type', 'metadata');
  const revoked = events.filter((e) => e.type === 'user.session_revoked');
  t.equal(revoked.length, 3);
  t.match(revoked[0].metadata, { actor: /^user:/, ip: /127\.0\.0\.1/, user_agent: 'node', request_id: /^req_/ });
});

t.test('another user’s session is not found; an expired session cannot act', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  await svc.member(m, 'a@shop.example', PASSWORD);
  await svc.member(m, 'b@shop.example', PASSWORD, 'viewer');
  const a = await signIn(svc, 'a@shop.example');
  const b = await signIn(svc, 'b@shop.example');
  const bSessions = await svc.request('GET', '/api/v1/auth/sessions', { key: b.accessToken });
  const bSession = bSessions.body.data[0].id as string;
  t.match(await svc.request('DELETE', `/api/v1/auth/sessions/${bSession}`, { key: a.accessToken }), { status: 404, body: { code: 'IKW-RES-001' } });
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: b.accessToken })).status, 200, 'b is still signed in');

  svc.clock.advance(REFRESH_TOKEN_TTL_MS + 1000);
  t.match(await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: a.refreshToken } }), { status: 401, body: { code: 'IKW-AUT-007' } });
});

t.test('roles are scopes: a viewer reads, a finance user pays out, a developer manages webhooks', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  for (const role of ['viewer', 'finance', 'developer'] as const) await svc.member(m, `${role}@shop.example`, PASSWORD, role);
  const viewer = await signIn(svc, 'viewer@shop.example');
  const finance = await signIn(svc, 'finance@shop.example');
  const developer = await signIn(svc, 'developer@shop.example');
  const env = { 'x-environment': 'sandbox' };
  const payout = { amount: 1000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234599' } };
  const hook = { url: 'https://hooks.shop.example/sika', enabled_events: ['payout.failed'] };

  t.equal((await svc.request('GET', '/api/v1/balance', { key: viewer.accessToken })).status, 200, 'viewer reads');
  t.match(await svc.request('POST', '/api/v1/payouts', { key: viewer.accessToken, body: payout, headers: env }), { status: 403, body: { code: 'IKW-AUT-004' } });
  t.match(await svc.request('POST', '/api/v1/webhook-endpoints', { key: viewer.accessToken, body: hook }), { status: 403, body: { code: 'IKW-AUT-004' } });
  t.match(await svc.request('POST', '/api/v1/payouts', { key: finance.accessToken, body: payout, headers: env }), { status: 400, body: { code: 'IKW-BAL-001' } }, 'finance may pay out (the balance is empty)');
  t.match(await svc.request('POST', '/api/v1/webhook-endpoints', { key: finance.accessToken, body: hook }), { status: 403 });
  t.equal((await svc.request('POST', '/api/v1/webhook-endpoints', { key: developer.accessToken, body: hook })).status, 200, 'developer manages webhooks');
  t.match(await svc.request('POST', '/api/v1/payouts', { key: developer.accessToken, body: payout, headers: env }), { status: 403 });
  t.ok(viewer.accessToken.split('.').length === 3 && ACCESS_TOKEN_TTL_S === 900);
});

t.test('organizations: create (with a merchant), mine, current, switch, and the merchant switch', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant('Maison Mère');
  await svc.member(m, 'owner@group.example', PASSWORD);
  const first = await signIn(svc, 'owner@group.example');
  const parentId = first.user.organizationId;

  const bad = await svc.request('POST', '/api/v1/organizations', { key: first.accessToken, body: { displayName: 'x'.repeat(129), country: 'SN', type: 'business' } });
  t.match(bad, { status: 400, body: { code: 'IKW-VAL-001', param: 'displayName' } });
  t.match(await svc.request('POST', '/api/v1/organizations', { key: first.accessToken, body: { displayName: 'Filiale', country: 'XX', type: 'business' } }), { status: 400, body: { code: 'IKW-VAL-004' } });
  t.match(await svc.request('POST', '/api/v1/organizations', { key: first.accessToken, body: { displayName: 'Filiale', country: 'CI', type: 'club' } }), { status: 400, body: { code: 'IKW-VAL-001', param: 'type' } });
  t.match(await svc.request('POST', '/api/v1/organizations', { key: first.accessToken, body: { displayName: 'Filiale', country: 'CI', type: 'business', parentId: 'not-a-uuid' } }), { status: 400, body: { param: 'parentId' } });
  t.match(await svc.request('POST', '/api/v1/organizations', { key: m.api_keys.sandbox, body: { displayName: 'Filiale', country: 'CI', type: 'business' } }), { status: 403, body: { code: 'IKW-ACC-003' } });

  const child = await svc.request('POST', '/api/v1/organizations', { key: first.accessToken, body: { displayName: 'Filiale Abidjan', country: 'ci', type: 'business', parentId } });
  t.equal(child.status, 200);
  t.match(child.body, { object: 'organization', displayName: 'Filiale Abidjan', country: 'CI', type: 'business', parentId, role: 'owner', merchantIds: [/^acct_/] });
  const childMerchant = child.body.merchantIds[0] as string;

  const mine = await svc.request('GET', '/api/v1/organizations/mine', { key: first.accessToken });
  t.same(
    mine.body.data.map((o: { displayName: string }) => o.displayName),
    ['Maison Mère', 'Filiale Abidjan'],
  );
  t.match(await svc.request('GET', '/api/v1/organizations/current', { key: first.accessToken }), { status: 200, body: { id: parentId, merchantIds: [m.id] } });

  // Switch organization: a new access token acting for the child's merchant; the old token keeps its claims until it expires.
  const switched = await svc.request('POST', '/api/v1/organizations/switch', { key: first.accessToken, body: { organizationId: child.body.id, persist: null } });
  t.equal(switched.status, 200);
  t.match(switched.body, { tokenType: 'Bearer', organization: { id: child.body.id }, user: { merchantId: childMerchant, organizationId: child.body.id } });
  t.match(await svc.request('GET', '/api/v1/organizations/current', { key: switched.body.accessToken }), { body: { id: child.body.id } });
  const intent = await svc.request('POST', '/api/v1/payment-intents', { key: switched.body.accessToken, body: { amount: 1000, currency: 'xof', transaction_country: 'SN' } });
  t.equal(intent.status, 200, 'acts for the child merchant');
  t.match(await svc.request('GET', `/api/v1/payment-intents/${intent.body.id}`, { key: m.api_keys.sandbox }), { status: 404 }, 'which is another merchant than the parent’s');
  const refreshed = await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } });
  t.match(refreshed.body.user, { organizationId: child.body.id, merchantId: childMerchant }, 'a refresh keeps the session where it was switched to');
  // Nothing of the session's inner state (its refresh-token hash, used and revoked flags) leaks into the answer.
  t.same(Object.keys(refreshed.body.user).sort(), ['email', 'id', 'merchantId', 'name', 'organizationId', 'role'], 'the user as every sign-in answers it, and nothing more');
  const claims = JSON.parse(Buffer.from(refreshed.body.accessToken.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
  t.notOk('refreshHash' in claims || 'proof' in claims, "nor into the access token's readable claims");

  // Not persisted: a new sign-in starts in the first organization; persisted, in the chosen one.
  t.equal((await signIn(svc, 'owner@group.example')).user.organizationId, parentId);
  await svc.request('POST', '/api/v1/organizations/switch', { key: switched.body.accessToken, body: { organizationId: child.body.id, persist: true } });
  t.equal((await signIn(svc, 'owner@group.example')).user.organizationId, child.body.id);

  // switch-merchant: to a merchant of one of the user's organizations only.
  const back = await svc.request('POST', '/api/v1/auth/switch-merchant', { key: switched.body.accessToken, body: { merchantId: m.id } });
  t.match(back, { status: 200, body: { user: { merchantId: m.id, organizationId: parentId, role: 'owner' } } });
  const stranger = await svc.merchant('Stranger');
  t.match(await svc.request('POST', '/api/v1/auth/switch-merchant', { key: back.body.accessToken, body: { merchantId: stranger.id } }), { status: 404, body: { code: 'IKW-RES-001', param: 'merchantId' } });
  t.match(await svc.request('POST', '/api/v1/auth/switch-merchant', { key: back.body.accessToken, body: {} }), { status: 400, body: { param: 'merchantId' } });
});

t.test('organizations of others: not found, and a child needs a managing role in the parent', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant('Shop');
  const other = await svc.merchant('Other shop');
  await svc.member(m, 'owner@shop.example', PASSWORD);
  await svc.member(m, 'viewer@shop.example', PASSWORD, 'viewer');
  await svc.member(other, 'owner@other.example', PASSWORD);
  const owner = await signIn(svc, 'owner@shop.example');
  const viewer = await signIn(svc, 'viewer@shop.example');
  const outsider = await signIn(svc, 'owner@other.example');
  const orgId = owner.user.organizationId;
  const body = { displayName: 'Child', country: 'SN', type: 'business', parentId: orgId };

  t.match(await svc.request('POST', '/api/v1/organizations', { key: outsider.accessToken, body }), { status: 404, body: { code: 'IKW-RES-001', param: 'parentId' } });
  t.match(await svc.request('POST', '/api/v1/organizations', { key: viewer.accessToken, body }), { status: 403, body: { code: 'IKW-ACC-002' } });
  t.match(await svc.request('POST', '/api/v1/organizations/switch', { key: outsider.accessToken, body: { organizationId: orgId } }), { status: 404, body: { code: 'IKW-RES-001' } });
  t.same(
    (await svc.request('GET', '/api/v1/organizations/mine', { key: outsider.accessToken })).body.data.map((o: { displayName: string }) => o.displayName),
    ['Other shop'],
  );
  t.match(await svc.request('GET', '/api/v1/organizations/current', { key: viewer.accessToken }), { body: { id: orgId, role: 'viewer' } });
});

t.test('an account per address: a second user with the same address (any case) is refused, also when raced', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  const attempts = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) => svc.system.accounts.createUser({ email: i % 2 ? 'Same@Shop.example' : 'same@shop.example', name: `n${i}`, phone: null, password: PASSWORD }, { actor: 'test' })),
  );
  t.equal(attempts.filter((a) => a.status === 'fulfilled').length, 1, 'one wins');
  for (const a of attempts) if (a.status === 'rejected') t.match(a.reason, { code: 'IKW-ACC-001' });
  t.equal(
    await svc.system
      .knex('read.users')
      .where({ email: 'same@shop.example' })
      .count('* as n')
      .first()
      .then((r) => Number(r!.n)),
    1,
  );
  await t.rejects(svc.member(m, 'SAME@shop.example', PASSWORD), { code: 'IKW-ACC-001' });
});

t.test('idempotent account POSTs: the same Idempotency-Key replays the first answer', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  await svc.member(m, 'owner@shop.example', PASSWORD);
  const s = await signIn(svc, 'owner@shop.example');
  const create = () => svc.request('POST', '/api/v1/organizations', { key: s.accessToken, body: { displayName: 'Once', country: 'SN', type: 'nonprofit' }, headers: { 'idempotency-key': 'org-once' } });
  const [a, b] = [await create(), await create()];
  t.equal(a.status, 200);
  t.same(b.body, a.body);
  t.equal((await svc.request('GET', '/api/v1/organizations/mine', { key: s.accessToken })).body.data.length, 2, 'one organization made, not two');
});

t.test('change-password: proved by the current one, throttled, other sessions end, the new one signs in', async (t) => {
  const svc = await startService(t, { env: { RATE_LIMIT_SIGN_IN: '3/15m' } });
  const m = await svc.merchant();
  await svc.member(m, 'owner@shop.example', PASSWORD);
  const here = await signIn(svc, 'owner@shop.example');
  const elsewhere = await signIn(svc, 'owner@shop.example');
  const change = (currentPassword: string, newPassword = 'a new horse, longer') => svc.request('POST', '/api/v1/auth/change-password', { key: here.accessToken, body: { currentPassword, newPassword } });

  t.match(await change(PASSWORD, 'short'), { status: 400, body: { code: 'IKW-VAL-001', param: 'newPassword' } });
  t.match(await change('not my password'), { status: 403, body: { code: 'IKW-ACC-004', param: 'currentPassword' } });
  t.match(await svc.request('POST', '/api/v1/auth/change-password', { key: m.api_keys.sandbox, body: { currentPassword: PASSWORD, newPassword: 'whatever123' } }), { status: 403, body: { code: 'IKW-ACC-003' } });
  t.match(await change(PASSWORD), { status: 200, body: { changed: true } });

  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: here.accessToken })).status, 200, 'the session that changed it goes on');
  t.equal((await svc.request('GET', '/api/v1/auth/me', { key: elsewhere.accessToken })).status, 401, 'every other session ended');
  t.equal((await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: elsewhere.refreshToken } })).status, 401);
  t.equal((await svc.request('POST', '/api/v1/auth/login', { body: { email: 'owner@shop.example', password: PASSWORD } })).status, 401, 'the old password is gone');
  t.equal((await svc.request('POST', '/api/v1/auth/login', { body: { email: 'owner@shop.example', password: 'a new horse, longer' } })).status, 200);

  // Guessing the current password with a stolen token is throttled like sign-in.
  for (let i = 0; i < 3; i++) t.equal((await change('guess number ' + i)).status, 403);
  t.match(await change('a new horse, longer', 'and another one!'), { status: 429, body: { code: 'IKW-LIM-001' } });
  const hashes = JSON.stringify(await svc.system.knex('events').where('stream_id', 'like', 'user-%').select('data'));
  t.notMatch(hashes, /a new horse/, 'no password in the log');
  t.match(hashes, /\$argon2id\$/, 'argon2id hashes');
});

t.test('personal-info and onboarding: partial changes, null clears, nothing changed decides nothing', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  await svc.member(m, 'owner@shop.example', PASSWORD);
  const s = await signIn(svc, 'owner@shop.example');
  const patch = (path: string, body: unknown) => svc.request('PATCH', `/api/v1/auth/${path}`, { key: s.accessToken, body });

  const named = await patch('personal-info', { name: 'Awa Diop', secondaryEmail: 'Awa@Home.example', language: 'fr-SN' });
  t.match(named, { status: 200, body: { name: 'Awa Diop', secondaryEmail: 'awa@home.example', language: 'fr-SN', email: 'owner@shop.example' } });
  t.match(await patch('personal-info', { language: null }), { status: 200, body: { name: 'Awa Diop', secondaryEmail: 'awa@home.example', language: null } });
  t.match(await patch('personal-info', { secondaryEmail: 'not an address' }), { status: 400, body: { code: 'IKW-VAL-001', param: 'secondaryEmail' } });
  t.match(await patch('personal-info', { language: 'français' }), { status: 400, body: { param: 'language' } });
  t.match(await patch('personal-info', { name: '' }), { status: 400, body: { param: 'name' } });
  t.match(await patch('personal-info', { email: 'x@y.example' }), { status: 400, body: { code: 'IKW-VAL-002' } }, 'the sign-in address changes through its own flow');

  t.match(await patch('onboarding', { onboardingStep: 'payouts', onboardingDismissed: true }), { status: 200, body: { onboardingStep: 'payouts', onboardingDismissed: true, onboardingCompleted: false } });
  t.match(await patch('onboarding', { onboardingDismissed: null, onboardingCompleted: true, onboardingStep: null }), { body: { onboardingStep: null, onboardingDismissed: true, onboardingCompleted: true } });

  const before = await svc.system.knex('events').where('stream_id', 'like', 'user-%').count('* as n').first();
  await patch('personal-info', { name: 'Awa Diop' });
  await patch('onboarding', { onboardingCompleted: true });
  const after = await svc.system.knex('events').where('stream_id', 'like', 'user-%').count('* as n').first();
  t.equal(after!.n, before!.n, 'no event for a PATCH that changes nothing');
  t.match(await svc.request('GET', '/api/v1/auth/me', { key: s.accessToken }), { body: { name: 'Awa Diop', onboardingCompleted: true } });
});
