/**
 * Operators (docs/operator.md): the CLI-made first admin, invitations by e-mail, sign-in with a
 * password and a mandatory authenticator app, sessions of their own, roles at the HTTP edge, the
 * team's last admin, and the merchants' list and page. Merchant credentials on operator routes
 * answer exactly as a path that does not exist.
 */
import t, { type Test } from '#tap';
import { createAdminKey } from '#packages/families/platform/platform-admin/commands.js';
import { startProcess } from '../../support/child-process.js';
import { acceptInvitation, invitationToken, OPERATOR_PASSWORD, operatorSession, totpCode } from '../../support/operators.js';
import { activateLive, startService, type TestResponse, type TestService } from '../../support/system.js';
import { lastMail, startSmtp } from '../../support/webhooks.js';

const post = (svc: TestService, path: string, body: unknown, key?: string) => svc.request('POST', path, { body, ...(key ? { key } : {}) });
const get = (svc: TestService, path: string, key?: string) => svc.request('GET', path, key ? { key } : {});

async function start(t: Test, env: Record<string, string> = {}) {
  const smtp = await startSmtp(t);
  const svc = await startService(t, { env: { SMTP_URL: smtp.url, ...env } });
  return { svc, mails: smtp.mails };
}

/** The actors of the stored events of `type`, oldest first. */
async function actorsOf(svc: TestService, type: string): Promise<string[]> {
  const rows = await svc.system.knex('events').where({ type }).orderBy('global_position').select<{ metadata: { actor: string } }[]>('metadata');
  return rows.map((r) => r.metadata.actor);
}

t.test('the CLI-made admin adds an authenticator app before any session, then signs in with password and code', async (t) => {
  const { svc } = await start(t);
  const cli = startProcess('bin/cli.js', { DATABASE_URL: svc.databaseUrl, LOG_LEVEL: 'silent', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') }, [
    'operator',
    'users',
    'create',
    '--email',
    'Ada@Ops.example',
    '--role',
    'admin',
    '--json',
  ]);
  t.equal(await cli.exit, 0, 'bin/sika operator users create');
  const made = JSON.parse(cli.output().trim().split('\n').pop()!) as { id: string; email: string; role: string; invitation_url: string };
  t.match(made, { id: /^opr_/, email: 'ada@ops.example', role: 'admin', invitation_url: /\/console\/invitation\?token=oi_/ });

  t.match(await post(svc, '/api/v1/operator/auth/sign-in', { email: 'ada@ops.example', password: OPERATOR_PASSWORD }), { status: 401, body: { code: 'IKW-OPR-003' } }, 'no password before the invitation is accepted');
  const token = invitationToken(made.invitation_url);
  t.match(await post(svc, '/api/v1/operator/auth/invitation/accept', { token: `${token}x`, password: OPERATOR_PASSWORD }), { status: 400, body: { code: 'IKW-OPR-008' } }, 'a made-up token');
  const accepted = await post(svc, '/api/v1/operator/auth/invitation/accept', { token, password: OPERATOR_PASSWORD });
  t.match(accepted, { status: 200, body: { next: 'enroll_totp', challengeToken: /^oc_/, totp: { secret: /^[A-Z2-7]+$/, otpauthUrl: /^otpauth:\/\/totp\// } } });
  t.notOk(accepted.body.sessionToken, 'no session from a password alone');
  t.match(await post(svc, '/api/v1/operator/auth/invitation/accept', { token, password: OPERATOR_PASSWORD }), { status: 400, body: { code: 'IKW-OPR-008' } }, 'an invitation works once');

  // Not signed in yet: the operator routes do not exist for them.
  t.equal((await get(svc, '/api/v1/operator/me')).status, 404);
  const secret = accepted.body.totp.secret as string;
  const right = await totpCode(svc, secret);
  t.match(await post(svc, '/api/v1/operator/auth/sign-in/complete', { challengeToken: accepted.body.challengeToken, code: right === '000000' ? '111111' : '000000' }), { status: 400, body: { code: 'IKW-OPR-004' } }, 'a wrong code');
  const session = await post(svc, '/api/v1/operator/auth/sign-in/complete', { challengeToken: accepted.body.challengeToken, code: right });
  t.match(session, { status: 200, body: { sessionToken: /\./, operator: { id: made.id, role: 'admin', status: 'active', authenticator: true } } });
  t.match(await get(svc, '/api/v1/operator/me', session.body.sessionToken), { status: 200, body: { operator: { id: made.id, email: 'ada@ops.example', role: 'admin' } } });
  t.same(await actorsOf(svc, 'operator.invited'), ['cli']);
  t.same(await actorsOf(svc, 'operator.activated'), [`operator:${made.id}`]);

  // Signing in again: the password, then a code from the app added (the same code twice opens one session).
  t.match(await post(svc, '/api/v1/operator/auth/sign-in', { email: 'ada@ops.example', password: 'not the password' }), { status: 401, body: { code: 'IKW-OPR-003' } });
  t.match(await post(svc, '/api/v1/operator/auth/sign-in', { email: 'nobody@ops.example', password: OPERATOR_PASSWORD }), { status: 401, body: { code: 'IKW-OPR-003' } });
  const again = await post(svc, '/api/v1/operator/auth/sign-in', { email: 'ADA@ops.example', password: OPERATOR_PASSWORD });
  t.match(again, { status: 200, body: { next: 'verify_totp' } });
  t.notOk(again.body.totp, 'the app is not shown again');
  t.match(await post(svc, '/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken, code: right }), { status: 400, body: { code: 'IKW-OPR-004' } }, 'a used code');
  svc.clock.advance(30_000);
  const second = await post(svc, '/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken, code: await totpCode(svc, secret) });
  t.equal(second.status, 200, second.text);
  t.match(await post(svc, '/api/v1/operator/auth/sign-in/complete', { challengeToken: again.body.challengeToken, code: await totpCode(svc, secret) }), { status: 400, body: { code: 'IKW-OPR-005' } }, 'a completed sign-in');

  // Sign-out ends that session only.
  t.match(await post(svc, '/api/v1/operator/auth/sign-out', undefined, second.body.sessionToken), { status: 200, body: { signedOut: true } });
  t.match(await get(svc, '/api/v1/operator/me', second.body.sessionToken), { status: 401, body: { code: 'IKW-OPR-002' } });
  t.equal((await get(svc, '/api/v1/operator/me', session.body.sessionToken)).status, 200);
});

t.test('five wrong codes end a sign-in; the console gets its session in an HttpOnly cookie', async (t) => {
  const { svc } = await start(t);
  const admin = await operatorSession(svc, 'admin', 'ops@ops.example');
  svc.clock.advance(30_000);
  const started = await post(svc, '/api/v1/operator/auth/sign-in', { email: admin.email, password: OPERATOR_PASSWORD });
  const wrong = (await totpCode(svc, admin.totpSecret)) === '000000' ? '111111' : '000000';
  for (let i = 0; i < 5; i++) t.equal((await post(svc, '/api/v1/operator/auth/sign-in/complete', { challengeToken: started.body.challengeToken, code: wrong })).body.code, 'IKW-OPR-004');
  t.match(await post(svc, '/api/v1/operator/auth/sign-in/complete', { challengeToken: started.body.challengeToken, code: await totpCode(svc, admin.totpSecret) }), { status: 400, body: { code: 'IKW-OPR-005' } });

  const fresh = await post(svc, '/api/v1/operator/auth/sign-in', { email: admin.email, password: OPERATOR_PASSWORD });
  const cookied = await svc.request('POST', '/api/v1/operator/auth/sign-in/complete', { body: { challengeToken: fresh.body.challengeToken, code: await totpCode(svc, admin.totpSecret) }, headers: { 'sika-operator-cookie': '1' } });
  t.equal(cookied.status, 200, cookied.text);
  t.notOk(cookied.body.sessionToken, 'the token is in the cookie only');
  const setCookie = cookied.headers.get('set-cookie')!;
  t.match(setCookie, /^sika_operator_session=[^;]+; Path=\/api\/v1\/operator; Max-Age=43200; HttpOnly; SameSite=Strict/);
  const cookie = setCookie.split(';')[0]!;
  t.equal((await svc.request('GET', '/api/v1/operator/me', { headers: { cookie } })).status, 404, 'the cookie counts only with Sika-Operator-Cookie: 1');
  t.match(await svc.request('GET', '/api/v1/operator/me', { headers: { cookie, 'sika-operator-cookie': '1' } }), { status: 200, body: { operator: { id: admin.operatorId } } });
});

t.test('an admin invites by e-mail; the invited reviewer signs in and is refused what is not theirs', async (t) => {
  const { svc, mails } = await start(t);
  const admin = await operatorSession(svc, 'admin');
  const invited = await post(svc, '/api/v1/operator/team/invitations', { email: 'Rita@Ops.example', name: 'Rita', role: 'reviewer' }, admin.token);
  t.match(invited, { status: 201, body: { object: 'operator', id: /^opr_/, email: 'rita@ops.example', role: 'reviewer', status: 'invited', authenticator: false } });
  t.same(await actorsOf(svc, 'operator.invited'), ['test', `operator:${admin.operatorId}`], "the invitation is the admin's");
  const linkOf = () => invitationToken(/(https?:\/\/\S+\/console\/invitation\?token=oi_\S+)/.exec(lastMail(mails, 'rita@ops.example'))![1]!);
  const firstLink = linkOf();

  // Inviting her again before she signed in renews the link: the first stops working.
  t.match(await post(svc, '/api/v1/operator/team/invitations', { email: 'rita@ops.example', name: 'Rita', role: 'reviewer' }, admin.token), { status: 201, body: { id: invited.body.id, status: 'invited' } });
  t.not(linkOf(), firstLink);
  t.match(await post(svc, '/api/v1/operator/auth/invitation/accept', { token: firstLink, password: OPERATOR_PASSWORD }), { status: 400, body: { code: 'IKW-OPR-008' } });
  const reviewer = await acceptInvitation(svc, linkOf());
  t.match(await post(svc, '/api/v1/operator/team/invitations', { email: 'rita@ops.example', name: 'Rita again', role: 'risk' }, admin.token), { status: 409, body: { code: 'IKW-OPR-007' } }, 'an active operator holds the address');
  t.equal(reviewer.operatorId, invited.body.id);
  t.match(await get(svc, '/api/v1/operator/me', reviewer.token), { status: 200, body: { operator: { role: 'reviewer', status: 'active' } } });
  t.equal((await get(svc, '/api/v1/operator/merchants', reviewer.token)).status, 200, 'every role reads merchants');
  t.match(await get(svc, '/api/v1/operator/team', reviewer.token), { status: 403, body: { code: 'IKW-OPR-001' } });
  t.match(await post(svc, `/api/v1/operator/team/${admin.operatorId}/deactivate`, undefined, reviewer.token), { status: 403, body: { code: 'IKW-OPR-001' } });

  // A role change shows at the operator's next request.
  t.match(await post(svc, `/api/v1/operator/team/${reviewer.operatorId}/role`, { role: 'admin' }, admin.token), { status: 200, body: { role: 'admin' } });
  t.match(await get(svc, '/api/v1/operator/team', reviewer.token), { status: 200, body: { data: [{ id: reviewer.operatorId }, { id: admin.operatorId }] } });
  t.same(await actorsOf(svc, 'operator.role_changed'), [`operator:${admin.operatorId}`]);
});

t.test('the team keeps an active admin; a deactivated operator is signed out and cannot sign in', async (t) => {
  const { svc } = await start(t);
  const admin = await operatorSession(svc, 'admin');
  t.match(await post(svc, `/api/v1/operator/team/${admin.operatorId}/deactivate`, undefined, admin.token), { status: 409, body: { code: 'IKW-OPR-006' } });
  t.match(await post(svc, `/api/v1/operator/team/${admin.operatorId}/role`, { role: 'finance' }, admin.token), { status: 409, body: { code: 'IKW-OPR-006' } });
  t.match(await post(svc, '/api/v1/operator/team/opr_000000000000000000000000/deactivate', undefined, admin.token), { status: 404, body: { code: 'IKW-RES-001' } });

  const other = await operatorSession(svc, 'admin');
  t.match(await post(svc, `/api/v1/operator/team/${admin.operatorId}/deactivate`, undefined, other.token), { status: 200, body: { status: 'deactivated' } });
  t.match(await get(svc, '/api/v1/operator/me', admin.token), { status: 401, body: { code: 'IKW-OPR-002' } }, 'their session ended');
  t.match(await post(svc, '/api/v1/operator/auth/sign-in', { email: admin.email, password: OPERATOR_PASSWORD }), { status: 401, body: { code: 'IKW-OPR-003' } });
  t.match(await post(svc, `/api/v1/operator/team/${other.operatorId}/deactivate`, undefined, other.token), { status: 409, body: { code: 'IKW-OPR-006' } }, 'now the last admin');
  t.match(await post(svc, `/api/v1/operator/team/${admin.operatorId}/role`, { role: 'risk' }, other.token), { status: 409, body: { code: 'IKW-OPR-009' } });
  t.same(await svc.system.verifyProjections(['operators', 'operator_sessions']), [], 'the team and the sessions rebuild as they are');
});

/** A 404 as a client sees it: status, body but its request id, and whether it was counted against a rate limit. */
const notFound = (res: TestResponse) => ({ status: res.status, body: { ...res.body, request_id: undefined }, counted: res.headers.has('ratelimit-limit') });

t.test('merchant credentials on operator routes answer as a path that does not exist; operator tokens are no merchant credential', async (t) => {
  // Rate limits on: a counted request would show it in its headers.
  const { svc } = await start(t, { RATE_LIMIT: '1000/1s', RATE_LIMIT_ADDRESS: '1000/1s' });
  const operator = await operatorSession(svc, 'admin');
  const { merchant, key } = await svc.sandboxMerchant();
  await svc.member(merchant, 'owner@shop.example', 'correct horse battery');
  const appToken = await svc.signIn('owner@shop.example', 'correct horse battery');
  const adminKey = (await createAdminKey(svc.system.store, svc.clock, 'ops', 'test')).secret;
  const forged = operator.token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));

  for (const [method, path] of [
    ['GET', '/api/v1/operator/me'],
    ['GET', '/api/v1/operator/merchants'],
    ['POST', '/api/v1/operator/team/invitations'],
    ['DELETE', '/api/v1/operator/me'],
  ] as const) {
    const unknown = notFound(await svc.request(method, `${path}-nowhere`));
    const expected = { ...unknown, body: { ...unknown.body, message: `No such route: ${method} ${path}` } };
    for (const [name, credential] of [
      ['no credential', undefined],
      ['a merchant API key', key],
      ['a merchant AppToken', appToken],
      ['an sk_admin_ key', adminKey],
      ['a forged operator token', forged],
    ] as const) {
      t.same(
        notFound(await svc.request(method, path, { ...(credential ? { key: credential } : {}), ...(method === 'POST' ? { body: { email: 'x@ops.example', name: 'X', role: 'admin' } } : {}) })),
        expected,
        `${method} ${path} with ${name}`,
      );
    }
  }
  const served = await get(svc, '/api/v1/operator/me', operator.token);
  t.equal(served.status, 200, 'while the operator is served');
  t.ok(served.headers.has('ratelimit-limit'), 'and counted');

  t.match(await get(svc, '/api/v1/payment-intents', operator.token), { status: 401, body: { code: 'IKW-AUT-007' } }, 'no API key, no AppToken');
  t.match(await get(svc, '/api/v1/auth/me', operator.token), { status: 401, body: { code: 'IKW-AUT-007' } }, 'no AppToken');
  t.match(await get(svc, '/api/v1/balance', operator.token), { status: 401 });
});

t.test("operators list and search every merchant and open one merchant's page", async (t) => {
  const { svc } = await start(t);
  const reviewer = await operatorSession(svc, 'reviewer');
  const kora = await svc.merchant('Kora Foods');
  svc.clock.advance(1_000);
  const baobab = await svc.merchant('Baobab Tech');
  svc.clock.advance(1_000);
  const third = await svc.merchant('Kora Textiles');
  await activateLive(svc, kora.id);

  const list = (query: string) => get(svc, `/api/v1/operator/merchants${query}`, reviewer.token);
  t.match(await list(''), { status: 200, body: { object: 'list', data: [{ id: third.id }, { id: baobab.id }, { id: kora.id }], has_more: false } });
  t.same(
    (await list('?search=KORA')).body.data.map((m: { id: string }) => m.id),
    [third.id, kora.id],
    'by words of the name, any case',
  );
  t.same(
    (await list(`?search=${baobab.id}`)).body.data.map((m: { id: string }) => m.id),
    [baobab.id],
    'by id',
  );
  t.same(
    (await list('?live_status=active')).body.data.map((m: { id: string }) => m.id),
    [kora.id],
    'by live status',
  );
  t.same((await list('?search=%25')).body.data, [], 'a % is a character, not a wildcard');
  const first = await list('?limit=2');
  t.match(first.body, { data: [{ id: third.id }, { id: baobab.id }], has_more: true });
  t.match((await list(`?limit=2&starting_after=${baobab.id}`)).body, { data: [{ id: kora.id }], has_more: false });
  t.match((await list(`?limit=2&ending_before=${kora.id}`)).body, { data: [{ id: third.id }, { id: baobab.id }] });

  const payment = await svc.request('POST', '/api/v1/payment-intents', { key: kora.api_keys.sandbox, body: { amount: 5000, currency: 'xof', transaction_country: 'SN' } });
  t.equal(payment.status, 200, payment.text);
  const page = await get(svc, `/api/v1/operator/merchants/${kora.id}`, reviewer.token);
  t.match(page, {
    status: 200,
    body: {
      merchant: { id: kora.id, name: 'Kora Foods', liveStatus: 'active' },
      liveActivation: { status: 'active' },
      balances: { sandbox: [], live: [] },
      recentPayments: { sandbox: [{ id: payment.body.id }], live: [] },
      recentPayouts: { sandbox: [], live: [] },
      auditTrail: [{ type: 'merchant.live_activated', actor: 'test' }],
    },
  });
  t.match(await get(svc, '/api/v1/operator/merchants/acct_000000000000000000000000', reviewer.token), { status: 404, body: { code: 'IKW-RES-001' } });
});

t.test('guessing an operator password is throttled like a merchant sign-in', async (t) => {
  const { svc } = await start(t, { RATE_LIMIT_SIGN_IN: '3/15m' });
  const admin = await operatorSession(svc, 'admin');
  for (let i = 0; i < 3; i++) t.equal((await post(svc, '/api/v1/operator/auth/sign-in', { email: admin.email, password: 'a wrong guess' })).body.code, 'IKW-OPR-003');
  const refused = await post(svc, '/api/v1/operator/auth/sign-in', { email: admin.email, password: OPERATOR_PASSWORD });
  t.match(refused, { status: 429, body: { code: 'IKW-LIM-001' } }, 'even the right password, until the window passes');
  t.ok(refused.headers.get('retry-after'));
  svc.clock.advance(15 * 60_000);
  t.match(await post(svc, '/api/v1/operator/auth/sign-in', { email: admin.email, password: OPERATOR_PASSWORD }), { status: 200, body: { next: 'verify_totp' } });
});
