/** /api/v1/merchant/team: members, roles and removal (docs/accounts.md, "Team"). */
import t from '#tap';
import { startService, type TestService } from '../../support/system.js';

const PASSWORD = 'correct horse battery';

async function signIn(svc: TestService, email: string) {
  const res = await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { accessToken: string; refreshToken: string; user: { id: string } };
}

t.test('members: listed with roles; owners and admins change roles; roles act at once', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant('Shop');
  const ownerId = await svc.member(m, 'owner@shop.example', PASSWORD);
  const adminId = await svc.member(m, 'admin@shop.example', PASSWORD, 'admin');
  const devId = await svc.member(m, 'dev@shop.example', PASSWORD, 'developer');
  const owner = await signIn(svc, 'owner@shop.example');
  const admin = await signIn(svc, 'admin@shop.example');
  const dev = await signIn(svc, 'dev@shop.example');
  const role = (token: string, userId: string, r: string) => svc.request('PATCH', `/api/v1/merchant/team/members/${userId}`, { key: token, body: { role: r } });

  const list = await svc.request('GET', '/api/v1/merchant/team/members', { key: dev.accessToken });
  t.same(
    list.body.data.map((x: { email: string; role: string }) => [x.email, x.role]),
    [
      ['owner@shop.example', 'owner'],
      ['admin@shop.example', 'admin'],
      ['dev@shop.example', 'developer'],
    ],
  );

  const hook = { url: 'https://hooks.shop.example/sika', enabled_events: ['payout.failed'] };
  t.equal((await svc.request('POST', '/api/v1/webhook-endpoints', { key: dev.accessToken, body: hook })).status, 200);
  t.match(await role(admin.accessToken, devId, 'viewer'), { status: 200, body: { object: 'team_member', user_id: devId, role: 'viewer' } });
  t.match(await svc.request('POST', '/api/v1/webhook-endpoints', { key: dev.accessToken, body: hook }), { status: 403, body: { code: 'IKW-AUT-004' } }, 'the demotion acts on the token already issued');

  t.match(await role(dev.accessToken, adminId, 'viewer'), { status: 403, body: { code: 'IKW-ACC-002' } }, 'a viewer manages no one');
  t.match(await role(admin.accessToken, devId, 'owner'), { status: 403, body: { code: 'IKW-ACC-002' } }, 'an admin makes no owner');
  t.match(await role(admin.accessToken, ownerId, 'viewer'), { status: 403, body: { code: 'IKW-ACC-002' } }, 'an admin touches no owner');
  t.match(await role(owner.accessToken, ownerId, 'admin'), { status: 409, body: { code: 'IKW-RES-002' } }, 'the last owner stays');
  t.match(await role(owner.accessToken, devId, 'superuser'), { status: 400, body: { code: 'IKW-VAL-001', param: 'role' } });
  t.match(await role(owner.accessToken, '0190aaaa-0000-7000-8000-000000000000', 'viewer'), { status: 404, body: { code: 'IKW-RES-001' } });
  t.match(await svc.request('GET', '/api/v1/merchant/team/members', { key: m.api_keys.sandbox }), { status: 403, body: { code: 'IKW-ACC-003' } });

  t.match(await role(owner.accessToken, adminId, 'owner'), { status: 200, body: { role: 'owner' } });
  t.match(await role(owner.accessToken, ownerId, 'finance'), { status: 200, body: { role: 'finance' } }, 'with a second owner, the first may step down');
  const events = await svc.system.knex('events').where('stream_id', 'like', 'organization-%').where('type', 'organization.member_role_changed').select('metadata');
  t.match(events[0].metadata, { actor: /^user:/, ip: /127\.0\.0\.1/, request_id: /^req_/ });
});

t.test('removal: the member’s sessions there end at once; another organization’s member is not found', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant('Shop');
  const other = await svc.merchant('Other');
  await svc.member(m, 'owner@shop.example', PASSWORD);
  const financeId = await svc.member(m, 'finance@shop.example', PASSWORD, 'finance');
  const outsiderId = await svc.member(other, 'owner@other.example', PASSWORD);
  const owner = await signIn(svc, 'owner@shop.example');
  const finance = await signIn(svc, 'finance@shop.example');
  const remove = (token: string, userId: string) => svc.request('DELETE', `/api/v1/merchant/team/members/${userId}`, { key: token });

  t.match(await remove(owner.accessToken, outsiderId), { status: 404, body: { code: 'IKW-RES-001' } });
  t.match(await remove(finance.accessToken, financeId), { status: 403, body: { code: 'IKW-ACC-002' } }, 'a finance member cannot remove even itself');
  t.match(await remove(owner.accessToken, financeId), { status: 200, body: { user_id: financeId, removed: true } });
  t.match(await svc.request('GET', '/api/v1/balance', { key: finance.accessToken }), { status: 401, body: { code: 'IKW-AUT-007' } });
  t.equal((await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: finance.refreshToken } })).status, 401);
  t.match(await svc.request('POST', '/api/v1/auth/login', { body: { email: 'finance@shop.example', password: PASSWORD } }), { status: 403, body: { code: 'IKW-ACC-002' } }, 'no organization left to sign in to');
  t.match(await remove(owner.accessToken, financeId), { status: 404 }, 'gone');
  t.same(
    (await svc.request('GET', '/api/v1/merchant/team/members', { key: owner.accessToken })).body.data.map((x: { role: string }) => x.role),
    ['owner'],
  );
});

t.test('two owners demoting each other at once: one succeeds, the organization keeps an owner', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant('Shop');
  const aId = await svc.member(m, 'a@shop.example', PASSWORD);
  const bId = await svc.member(m, 'b@shop.example', PASSWORD, 'owner');
  const a = await signIn(svc, 'a@shop.example');
  const b = await signIn(svc, 'b@shop.example');
  const results = await Promise.all([
    svc.request('PATCH', `/api/v1/merchant/team/members/${bId}`, { key: a.accessToken, body: { role: 'viewer' } }),
    svc.request('PATCH', `/api/v1/merchant/team/members/${aId}`, { key: b.accessToken, body: { role: 'viewer' } }),
  ]);
  const statuses = results.map((r) => r.status).sort();
  t.ok(statuses[0] === 200 && statuses[1] !== 200, `one wins: ${statuses.join(', ')}`);
  const owners = (await svc.system.knex('read.organization_members').where({ role: 'owner' })).length;
  t.equal(owners, 1);
});
