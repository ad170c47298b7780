/**
 * Authentication (docs/architecture.md, "HTTP conventions") against the real server and database: the Bearer
 * credential, API key shape, revocation, scopes, and the X-Environment header.
 */
import t from '#tap';
import { randomBase62 } from '#packages/core/ids.js';
import { revokeApiKey } from '#packages/families/merchants/merchant/commands.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { assertError, assertOk } from '../support/assertions.js';
import { startService, type TestResponse } from '../support/system.js';
import type { Environment } from '#packages/core/owner.js';

function whoami(path: string, method: 'get' | 'post', scope: string, environmentHeader?: 'required' | 'optional') {
  return route({
    method,
    path,
    summary: `Who is calling, with ${scope} (test only)`,
    auth: { scope, ...(environmentHeader ? { environmentHeader } : {}) },
    response: { type: 'object' },
    handler: async (ctx) => ({
      merchant_id: ctx.principal.merchantId,
      environment: ctx.principal.environment,
      livemode: ctx.principal.livemode,
      actor: ctx.principal.actor,
    }),
  });
}

const testFamily: RouteGroup = {
  name: 'test',
  routes: [
    route({
      method: 'post',
      path: '/test/echo',
      summary: 'Echoes a validated body (test only)',
      auth: { scope: 'payouts.write' },
      body: { type: 'object', additionalProperties: false, required: ['amount'], properties: { amount: { type: 'integer' } } },
      response: { type: 'object' },
      handler: async (ctx) => ({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment, body: ctx.body }),
    }),
    whoami('/test/whoami', 'get', 'payouts.read', 'required'),
    whoami('/test/hooks', 'get', 'webhooks.read'),
    whoami('/test/hooks', 'post', 'webhooks.write', 'optional'),
  ],
};

const svc = await startService(t, { families: () => [testFamily] });
const merchant = await svc.merchant('Auth merchant');
const other = await svc.merchant('Another merchant');

/** GET /test/whoami with a raw Authorization header (or none) and an X-Environment (`null`: none). */
function whoamiWith(authorization: string | undefined, environment: string | null = 'sandbox'): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (environment !== null) headers['x-environment'] = environment;
  return svc.request('GET', '/test/whoami', { headers });
}

const keyWith = (scopes: string[], environment: Environment = 'sandbox') => svc.apiKey(merchant.id, scopes, environment);

t.test('a full-scope key works', async (t) => {
  const res = await whoamiWith(`Bearer ${merchant.api_keys.sandbox}`);
  assertOk(t, res);
  t.equal(res.body.merchant_id, merchant.id);
  t.equal(res.body.environment, 'sandbox');
});

t.test('the credential', async (t) => {
  await t.test('no Authorization header', async (t) => {
    assertError(t, await whoamiWith(undefined), 'IKW-AUT-001', null);
  });
  await t.test('an empty Authorization header', async (t) => {
    assertError(t, await whoamiWith(''), 'IKW-AUT-001');
  });
  await t.test('no credential on a POST with a valid body', async (t) => {
    assertError(t, await svc.request('POST', '/test/echo', { body: { amount: 1 } }), 'IKW-AUT-001');
  });
  const notBearer: [string, string][] = [
    ['Basic', `Basic ${Buffer.from(`${merchant.api_keys.sandbox}:`).toString('base64')}`],
    ['Token scheme', `Token ${merchant.api_keys.sandbox}`],
    ['the bare key, no scheme', merchant.api_keys.sandbox],
    ['Bearer with nothing after it', 'Bearer'],
    ['Bearer with only spaces', 'Bearer    '],
    ['two credentials', `Bearer ${merchant.api_keys.sandbox} ${merchant.api_keys.live}`],
  ];
  for (const [name, header] of notBearer) {
    await t.test(`not Bearer <key>: ${name}`, async (t) => assertError(t, await whoamiWith(header), 'IKW-AUT-001'));
  }
  await t.test('the scheme is case-insensitive', async (t) => {
    assertOk(t, await whoamiWith(`bearer ${merchant.api_keys.sandbox}`));
    assertOk(t, await whoamiWith(`BEARER ${merchant.api_keys.sandbox}`));
  });

  const secret = merchant.api_keys.sandbox;
  const malformed: [string, string][] = [
    ['too short', 'sk_test_abc'],
    ['a publishable-looking key', `pk_test_${randomBase62(43)}`],
    ['an unknown environment prefix', `sk_prod_${randomBase62(43)}`],
    ['a character outside base62', `${secret.slice(0, -1)}-`],
    ['far too long', `sk_test_${randomBase62(200)}`],
    ['SQL', `sk_test_' OR '1'='1`.replace(/ /g, '')],
  ];
  const answers: string[] = [];
  for (const [name, key] of malformed) {
    await t.test(`a malformed key: ${name}`, async (t) => {
      const res = await whoamiWith(`Bearer ${key}`);
      assertError(t, res, 'IKW-AUT-002', null);
      answers.push(res.body?.message);
    });
  }
  await t.test('an unknown, well-formed key', async (t) => {
    const res = await whoamiWith(`Bearer sk_test_${randomBase62(43)}`);
    assertError(t, res, 'IKW-AUT-002');
    answers.push(res.body?.message);
    const live = await whoamiWith(`Bearer sk_live_${randomBase62(43)}`, 'live');
    assertError(t, live, 'IKW-AUT-002');
  });
  await t.test('a key that differs from a real one in its last character', async (t) => {
    const last = secret.at(-1) === 'a' ? 'b' : 'a';
    assertError(t, await whoamiWith(`Bearer ${secret.slice(0, -1)}${last}`), 'IKW-AUT-002');
  });
  await t.test('a revoked key', async (t) => {
    const key = await keyWith(['*']);
    assertOk(t, await whoamiWith(`Bearer ${key.secret}`));
    await revokeApiKey(svc.system.store, svc.clock, merchant.id, key.id, 'test');
    const res = await whoamiWith(`Bearer ${key.secret}`);
    assertError(t, res, 'IKW-AUT-002');
    answers.push(res.body?.message);
    assertError(t, await svc.request('POST', '/test/echo', { key: key.secret, body: { amount: 1 } }), 'IKW-AUT-002');
    assertOk(t, await whoamiWith(`Bearer ${merchant.api_keys.sandbox}`)); // the merchant's other keys still work
  });
  await t.test('malformed, unknown and revoked keys get the same answer', async (t) => {
    t.equal(new Set(answers).size, 1, 'one message for all');
  });
  await t.test('a JWT-shaped credential is checked as an AppToken: a forged one is IKW-AUT-007', async (t) => {
    assertError(t, await whoamiWith('Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'), 'IKW-AUT-007');
  });
});

t.test('scopes', async (t) => {
  await t.test('a key without the scope', async (t) => {
    const key = await keyWith(['webhooks.read']);
    assertError(t, await whoamiWith(`Bearer ${key.secret}`), 'IKW-AUT-004');
    assertError(t, await svc.request('POST', '/test/echo', { key: key.secret, body: { amount: 1 } }), 'IKW-AUT-004');
    assertOk(t, await svc.request('GET', '/test/hooks', { key: key.secret }));
  });
  await t.test('x.read does not imply x.write', async (t) => {
    const key = await keyWith(['payouts.read']);
    assertOk(t, await whoamiWith(`Bearer ${key.secret}`));
    const res = await svc.request('POST', '/test/echo', { key: key.secret, body: { amount: 1 } });
    assertError(t, res, 'IKW-AUT-004');
    t.match(res.body?.message, /payouts\.write/, 'the message names the scope needed');
  });
  await t.test('x.write implies x.read', async (t) => {
    const key = await keyWith(['payouts.write']);
    assertOk(t, await whoamiWith(`Bearer ${key.secret}`));
    const echo = await svc.request('POST', '/test/echo', { key: key.secret, body: { amount: 1 } });
    assertOk(t, echo);
    t.same(echo.body?.body, { amount: 1 });
  });
  await t.test('x.write implies nothing about y', async (t) => {
    const key = await keyWith(['payouts.write']);
    assertError(t, await svc.request('GET', '/test/hooks', { key: key.secret }), 'IKW-AUT-004');
    assertError(t, await svc.request('POST', '/test/hooks', { key: key.secret }), 'IKW-AUT-004');
  });
  await t.test('a scope is matched exactly, not by prefix', async (t) => {
    const key = await keyWith(['payouts', 'payouts.re', 'payouts.readx', 'payouts.*']);
    assertError(t, await whoamiWith(`Bearer ${key.secret}`), 'IKW-AUT-004');
  });
  await t.test('several scopes', async (t) => {
    const key = await keyWith(['payouts.read', 'webhooks.write']);
    assertOk(t, await whoamiWith(`Bearer ${key.secret}`));
    assertOk(t, await svc.request('GET', '/test/hooks', { key: key.secret }));
    assertOk(t, await svc.request('POST', '/test/hooks', { key: key.secret }));
    assertError(t, await svc.request('POST', '/test/echo', { key: key.secret, body: { amount: 1 } }), 'IKW-AUT-004');
  });
  await t.test('* holds every scope', async (t) => {
    const key = await keyWith(['*']);
    assertOk(t, await whoamiWith(`Bearer ${key.secret}`));
    assertOk(t, await svc.request('POST', '/test/hooks', { key: key.secret }));
    assertOk(t, await svc.request('POST', '/test/echo', { key: key.secret, body: { amount: 1 } }));
  });
  await t.test('a key with no scopes at all', async (t) => {
    const key = await keyWith([]);
    assertError(t, await whoamiWith(`Bearer ${key.secret}`), 'IKW-AUT-004');
  });
});

t.test('X-Environment', async (t) => {
  const sandbox = `Bearer ${merchant.api_keys.sandbox}`;
  const live = `Bearer ${merchant.api_keys.live}`;
  for (const value of ['production', 'test', 'Sandbox', 'LIVE', 'sandbox,live', '*']) {
    await t.test(`a bad value ${JSON.stringify(value)}`, async (t) => {
      assertError(t, await whoamiWith(sandbox, value), 'IKW-AUT-005', 'X-Environment');
    });
  }
  await t.test('a bad value where the header is optional', async (t) => {
    const res = await svc.request('GET', '/test/hooks', { key: merchant.api_keys.sandbox, headers: { 'x-environment': 'staging' } });
    assertError(t, res, 'IKW-AUT-005', 'X-Environment');
  });
  await t.test('a sandbox key with X-Environment: live', async (t) => {
    assertError(t, await whoamiWith(sandbox, 'live'), 'IKW-AUT-003', 'X-Environment');
  });
  await t.test('a live key with X-Environment: sandbox', async (t) => {
    assertError(t, await whoamiWith(live, 'sandbox'), 'IKW-AUT-003', 'X-Environment');
  });
  await t.test('the other environment where the header is optional', async (t) => {
    const res = await svc.request('POST', '/test/hooks', { key: merchant.api_keys.live, headers: { 'x-environment': 'sandbox' } });
    assertError(t, res, 'IKW-AUT-003', 'X-Environment');
  });
  await t.test('missing where required', async (t) => {
    assertError(t, await whoamiWith(sandbox, null), 'IKW-AUT-006', 'X-Environment');
    assertError(t, await whoamiWith(live, null), 'IKW-AUT-006', 'X-Environment');
  });
  await t.test('missing where optional: the key decides', async (t) => {
    const s = await svc.request('GET', '/test/hooks', { key: merchant.api_keys.sandbox });
    assertOk(t, s);
    t.equal(s.body.environment, 'sandbox');
    const l = await svc.request('GET', '/test/hooks', { key: merchant.api_keys.live });
    assertOk(t, l);
    t.equal(l.body.environment, 'live');
  });
  await t.test('an environment check does not reveal whether an unknown key exists', async (t) => {
    assertError(t, await whoamiWith(`Bearer sk_test_${randomBase62(43)}`, 'live'), 'IKW-AUT-002');
  });
});

t.test('sandbox and live keys of the same merchant resolve to different environments', async (t) => {
  const s = await whoamiWith(`Bearer ${merchant.api_keys.sandbox}`, 'sandbox');
  const l = await whoamiWith(`Bearer ${merchant.api_keys.live}`, 'live');
  assertOk(t, s);
  assertOk(t, l);
  t.same({ merchant_id: s.body.merchant_id, environment: s.body.environment, livemode: s.body.livemode }, { merchant_id: merchant.id, environment: 'sandbox', livemode: false });
  t.same({ merchant_id: l.body.merchant_id, environment: l.body.environment, livemode: l.body.livemode }, { merchant_id: merchant.id, environment: 'live', livemode: true });
  t.not(s.body.actor, l.body.actor, 'two different keys act');

  await t.test('a scoped live key is live too', async (t) => {
    const key = await keyWith(['payouts.read'], 'live');
    t.match(key.secret, /^sk_live_/);
    const res = await whoamiWith(`Bearer ${key.secret}`, 'live');
    assertOk(t, res);
    t.equal(res.body.environment, 'live');
    t.equal(res.body.actor, key.id, 'the key is the actor');
    assertError(t, await whoamiWith(`Bearer ${key.secret}`, 'sandbox'), 'IKW-AUT-003');
  });
  await t.test('another merchant\u2019s key resolves to that merchant', async (t) => {
    const res = await whoamiWith(`Bearer ${other.api_keys.sandbox}`);
    assertOk(t, res);
    t.equal(res.body.merchant_id, other.id);
    t.not(other.id, merchant.id);
  });
  await t.test('revoking the sandbox key leaves the live key working', async (t) => {
    const s2 = await keyWith(['*'], 'sandbox');
    const l2 = await keyWith(['*'], 'live');
    await revokeApiKey(svc.system.store, svc.clock, merchant.id, s2.id, 'test');
    assertError(t, await whoamiWith(`Bearer ${s2.secret}`, 'sandbox'), 'IKW-AUT-002');
    assertOk(t, await whoamiWith(`Bearer ${l2.secret}`, 'live'));
  });
});
