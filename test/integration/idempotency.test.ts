/**
 * Idempotency-Key (docs/architecture.md, "HTTP conventions") against the real server and database: byte-for-byte
 * replay, body mismatch, in-flight conflicts, scope (merchant × environment × credential × method × path), what
 * is not stored, key shape, expiry, and concurrency.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from '#tap';
import { ApiError, type ErrorCode } from '#packages/core/errors.js';
import { newId } from '#packages/core/ids.js';
import { SecretBox } from '#packages/core/secrets.js';
import { route, type RouteGroup, type Method, type RouteAuth } from '#packages/http/routes.js';
import { assertError, assertOk, assertSane } from '../support/assertions.js';
import { fund, mobileMoney, postPayout } from '../support/payouts.js';
import { passwordChallenge } from '../support/accounts/second-factors.js';
import { startService, type TestResponse } from '../support/system.js';

interface ChargeBody {
  amount: number;
  currency?: string;
  meta?: Record<string, string>;
}

const chargeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: { type: 'integer' },
    currency: { type: 'string' },
    meta: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

/** How often each test route's handler ran. */
const calls = { charges: 0, patch: 0, accounts: 0, slow: 0, parallel: 0, payouts: 0 };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The slow route signals `entered` and waits for `release`, so a test holds it in flight. */
let slow = { entered: deferred(), release: deferred() };
/** How long the parallel route's handler takes. */
let parallelDelayMs = 0;

function answer(n: number, ctx: { body: ChargeBody; principal: { merchantId: string; environment: string } }) {
  const { amount } = ctx.body;
  // Amounts that make the handler fail: 404 is a final answer (kept), 409 a retryable one (not kept).
  if (amount === 404) throw new ApiError('IKW-RES-001', 'No such account', 'amount');
  if (amount === 409) throw new ApiError('IKW-RES-003');
  return { id: newId('po'), object: 'test_charge', call: n, amount, merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment };
}

interface ChargeRouteOptions {
  summary?: string;
  auth?: RouteAuth;
  /** Runs after the call is counted, before the handler answers: holds or slows the request. */
  beforeAnswer?: () => Promise<void>;
}

function chargeRoute(method: Method, path: string, counter: keyof typeof calls, options: ChargeRouteOptions = {}) {
  return route<ChargeBody>({
    method,
    path,
    summary: options.summary ?? `${method.toUpperCase()} ${path} (test only)`,
    auth: options.auth ?? { scope: 'payouts.write' },
    body: chargeSchema,
    status: 201,
    response: { type: 'object' },
    handler: async (ctx) => {
      const n = ++calls[counter];
      if (options.beforeAnswer) await options.beforeAnswer();
      return answer(n, ctx);
    },
  });
}

const testFamily: RouteGroup = {
  name: 'test',
  routes: [
    chargeRoute('post', '/test/charges', 'charges'),
    chargeRoute('patch', '/test/charges', 'patch'),
    chargeRoute('post', '/test/accounts/:account/charges', 'accounts'),
    chargeRoute('post', '/test/slow', 'slow', {
      summary: 'A request held open by the test',
      beforeAnswer: async () => {
        slow.entered.resolve();
        await slow.release.promise;
      },
    }),
    chargeRoute('post', '/test/parallel', 'parallel', {
      summary: 'A request that takes a moment',
      beforeAnswer: async () => {
        if (parallelDelayMs > 0) await sleep(parallelDelayMs);
      },
    }),
    chargeRoute('post', '/test/payouts', 'payouts', {
      summary: 'Needs an Idempotency-Key in live',
      auth: { scope: 'payouts.write', environmentHeader: 'optional', idempotencyKeyInLive: 'required' },
    }),
    route({
      method: 'get',
      path: '/test/charges',
      summary: 'A read',
      auth: { scope: 'payouts.read' },
      response: { type: 'object' },
      handler: async () => ({ object: 'list', data: [] }),
    }),
  ],
};

const svc = await startService(t, { families: () => [testFamily] });
const merchant = await svc.merchant('Idempotency merchant');
const other = await svc.merchant('Another merchant');
const key = merchant.api_keys.sandbox;

const PASSWORD = 'correct horse battery';
async function signIn(email: string): Promise<string> {
  const res = await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.accessToken as string;
}

let seq = 0;
/** A fresh Idempotency-Key for each case. */
function freshKey(): string {
  return `idem-${Date.now()}-${++seq}`;
}

interface Call {
  apiKey?: string;
  idem?: string;
  path?: string;
  method?: string;
  body?: unknown;
  rawBody?: string;
}

function send(c: Call): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  if (c.idem !== undefined) headers['idempotency-key'] = c.idem;
  if (c.rawBody !== undefined) headers['content-type'] = 'application/json';
  return svc.request(c.method ?? 'POST', c.path ?? '/test/charges', {
    key: c.apiKey ?? key,
    headers,
    ...(c.rawBody !== undefined ? { rawBody: c.rawBody } : { body: c.body }),
  });
}

/** An error this request got itself, not a replay of an earlier answer. */
function assertOwnError(t: Test, res: TestResponse, code: ErrorCode, param?: string): void {
  assertError(t, res, code, param);
  t.notOk(res.headers.has('idempotent-replayed'), 'not a replay');
}

/** A first run: the handler's own answer, not a replay. */
function assertRan(t: Test, res: TestResponse, status = 201): void {
  assertOk(t, res, status);
  t.notOk(res.headers.has('idempotent-replayed'), 'not a replay');
}

/** A replay of `first`: same status, the same bytes, marked as replayed. */
function assertReplay(t: Test, res: TestResponse, first: TestResponse): void {
  assertSane(t, res);
  t.equal(res.status, first.status, 'the same status');
  t.equal(res.text, first.text, 'a byte-identical body');
  t.equal(res.headers.get('idempotent-replayed'), 'true', 'Idempotent-Replayed: true');
}

t.test('a replay returns the stored answer byte for byte and does not run the handler again', async (t) => {
  const idem = freshKey();
  const body = { amount: 5000, currency: 'XOF', meta: { order: 'A-1' } };
  const before = calls.charges;
  const first = await send({ idem, body });
  assertRan(t, first);
  t.equal(first.body.amount, 5000);
  t.equal(calls.charges, before + 1, 'the handler ran once');
  for (let i = 0; i < 3; i++) {
    const again = await send({ idem, body });
    assertReplay(t, again, first);
    t.not(again.headers.get('request-id'), first.headers.get('request-id'), 'a replay is a request of its own');
  }
  t.equal(calls.charges, before + 1, 'replays did not run the handler');
});

t.test('without an Idempotency-Key every request runs', async (t) => {
  const before = calls.charges;
  const a = await send({ body: { amount: 1 } });
  const b = await send({ body: { amount: 1 } });
  assertRan(t, a);
  assertRan(t, b);
  t.not(a.body.id, b.body.id);
  t.equal(calls.charges, before + 2);
});

t.test('the same key with a different body is refused', async (t) => {
  const idem = freshKey();
  const first = await send({ idem, body: { amount: 100 } });
  assertRan(t, first);
  const before = calls.charges;
  assertOwnError(t, await send({ idem, body: { amount: 101 } }), 'IKW-IDM-002', 'Idempotency-Key');
  assertOwnError(t, await send({ idem, body: { amount: 100, currency: 'XOF' } }), 'IKW-IDM-002', 'Idempotency-Key');
  assertOwnError(t, await send({ idem, body: { amount: 100, meta: {} } }), 'IKW-IDM-002', 'Idempotency-Key');
  t.equal(calls.charges, before, 'the handler did not run');
  assertReplay(t, await send({ idem, body: { amount: 100 } }), first);
  t.pass('the original body still replays');
});

t.test('the same body with keys in another order is the same request', async (t) => {
  const idem = freshKey();
  const first = await send({ idem, rawBody: '{"amount":7,"currency":"XOF","meta":{"a":"1","b":"2"}}' });
  assertRan(t, first);
  const before = calls.charges;
  assertReplay(t, await send({ idem, rawBody: '{"meta":{"b":"2","a":"1"},"currency":"XOF","amount":7}' }), first);
  assertReplay(t, await send({ idem, rawBody: '{\n  "currency": "XOF",\n  "meta": { "b": "2", "a": "1" },\n  "amount": 7\n}' }), first);
  t.equal(calls.charges, before, 'the handler did not run again');
});

t.test('the same key while the first request still runs', async (t) => {
  slow = { entered: deferred(), release: deferred() };
  const idem = freshKey();
  const body = { amount: 250 };
  const firstPromise = send({ path: '/test/slow', idem, body });
  await slow.entered.promise;
  t.equal(calls.slow, 1, 'the first request is in the handler');

  const busy = await send({ path: '/test/slow', idem, body });
  assertOwnError(t, busy, 'IKW-IDM-003');
  t.equal(busy.body.retryable, true, 'retryable');
  assertOwnError(t, await send({ path: '/test/slow', idem, body: { amount: 251 } }), 'IKW-IDM-002', 'Idempotency-Key');
  t.equal(calls.slow, 1, 'the handler did not run again');

  slow.release.resolve();
  const first = await firstPromise;
  assertRan(t, first);
  const replay = await send({ path: '/test/slow', idem, body });
  assertReplay(t, replay, first);
  t.equal(calls.slow, 1, 'the handler ran exactly once');
});

t.test('a first request that died is taken over once it is abandoned (60 s)', async (t) => {
  slow = { entered: deferred(), release: deferred() };
  const idem = freshKey();
  const body = { amount: 260 };
  const before = calls.slow;
  const firstPromise = send({ path: '/test/slow', idem, body });
  await slow.entered.promise;
  svc.clock.advance(59_000);
  assertOwnError(t, await send({ path: '/test/slow', idem, body }), 'IKW-IDM-003');
  svc.clock.advance(2_000);
  const secondPromise = send({ path: '/test/slow', idem, body });
  for (let waited = 0; calls.slow < before + 2 && waited < 5_000; waited += 5) await sleep(5);
  t.equal(calls.slow, before + 2, 'the handler runs again for the taker');
  slow.release.resolve();
  const [first, second] = await Promise.all([firstPromise, secondPromise]);
  assertRan(t, first);
  assertRan(t, second);
  assertReplay(t, await send({ path: '/test/slow', idem, body }), second);
  t.pass('the taker\u2019s answer is the one kept');
});

t.test('keys are scoped per merchant, environment, credential, method and path', async (t) => {
  const idem = freshKey();
  const body = { amount: 900 };
  const first = await send({ idem, body });
  assertRan(t, first);
  t.equal(first.body.merchant_id, merchant.id);

  await t.test('another merchant', async (t) => {
    const before = calls.charges;
    const res = await send({ apiKey: other.api_keys.sandbox, idem, body });
    assertRan(t, res);
    t.equal(res.body.merchant_id, other.id);
    t.not(res.body.id, first.body.id);
    t.equal(calls.charges, before + 1, 'the handler ran anew');
    assertReplay(t, await send({ apiKey: other.api_keys.sandbox, idem, body }), res);
    t.pass('and replays its own answer');
    const different = await send({ apiKey: other.api_keys.sandbox, idem: freshKey(), body: { amount: 1 } });
    assertRan(t, different);
  });
  await t.test('another merchant may use the key with another body', async (t) => {
    const idem2 = freshKey();
    assertRan(t, await send({ idem: idem2, body: { amount: 1 } }));
    assertRan(t, await send({ apiKey: other.api_keys.sandbox, idem: idem2, body: { amount: 2 } }));
  });
  await t.test('the other environment of the same merchant', async (t) => {
    const before = calls.charges;
    const res = await send({ apiKey: merchant.api_keys.live, idem, body });
    assertRan(t, res);
    t.equal(res.body.environment, 'live');
    t.equal(calls.charges, before + 1, 'the handler ran anew');
    assertReplay(t, await send({ apiKey: merchant.api_keys.live, idem, body }), res);
  });
  await t.test('another API key of the same merchant and environment has answers of its own', async (t) => {
    const second = await svc.apiKey(merchant.id, ['payouts.write']);
    const before = calls.charges;
    const res = await send({ apiKey: second.secret, idem, body });
    assertRan(t, res);
    t.not(res.body.id, first.body.id, 'not the first key\u2019s answer');
    t.equal(calls.charges, before + 1, 'the handler ran anew');
    assertReplay(t, await send({ apiKey: second.secret, idem, body }), res);
    t.pass('and replays its own answer');
    assertRan(t, await send({ apiKey: second.secret, idem: freshKey(), body: { amount: 901 } }));
    const idem2 = freshKey();
    assertRan(t, await send({ idem: idem2, body: { amount: 1 } }));
    assertRan(t, await send({ apiKey: second.secret, idem: idem2, body: { amount: 2 } }));
    t.pass('nor is another key\u2019s body a mismatch');
  });
  await t.test('another method on the same path', async (t) => {
    const before = calls.patch;
    const res = await send({ method: 'PATCH', idem, body });
    assertRan(t, res);
    t.equal(calls.patch, before + 1, 'the handler ran anew');
    assertReplay(t, await send({ method: 'PATCH', idem, body }), res);
  });
  await t.test('another path', async (t) => {
    const before = calls.accounts;
    const a = await send({ path: '/test/accounts/acct_a/charges', idem, body });
    const b = await send({ path: '/test/accounts/acct_b/charges', idem, body });
    assertRan(t, a);
    assertRan(t, b);
    t.not(a.body.id, b.body.id);
    t.equal(calls.accounts, before + 2, 'each path ran anew');
    assertReplay(t, await send({ path: '/test/accounts/acct_a/charges', idem, body }), a);
    assertReplay(t, await send({ path: '/test/accounts/acct_b/charges', idem, body }), b);
  });
  assertReplay(t, await send({ idem, body }), first);
  t.pass('the first scope still replays its own answer');
});

t.test('failures before the handler are not stored', async (t) => {
  await t.test('a validation failure', async (t) => {
    const idem = freshKey();
    assertOwnError(t, await send({ idem, body: { amount: 'ten' } }), 'IKW-VAL-001', 'amount');
    assertOwnError(t, await send({ idem, body: { amount: 10, surprise: true } }), 'IKW-VAL-002', 'surprise');
    const before = calls.charges;
    const fixed = await send({ idem, body: { amount: 10 } });
    assertRan(t, fixed);
    t.equal(calls.charges, before + 1, 'the corrected request ran');
    assertReplay(t, await send({ idem, body: { amount: 10 } }), fixed);
  });
  await t.test('malformed JSON', async (t) => {
    const idem = freshKey();
    assertOwnError(t, await send({ idem, rawBody: '{"amount": 11' }), 'IKW-REQ-001');
    assertRan(t, await send({ idem, body: { amount: 11 } }));
  });
  await t.test('a key without the scope', async (t) => {
    const idem = freshKey();
    const readOnly = await svc.apiKey(merchant.id, ['payouts.read']);
    assertOwnError(t, await send({ apiKey: readOnly.secret, idem, body: { amount: 12 } }), 'IKW-AUT-004');
    assertRan(t, await send({ idem, body: { amount: 12 } }));
  });
});

t.test('what the handler answers', async (t) => {
  await t.test('a final error is stored and replayed', async (t) => {
    const idem = freshKey();
    const before = calls.charges;
    const first = await send({ idem, body: { amount: 404 } });
    assertOwnError(t, first, 'IKW-RES-001', 'amount');
    const again = await send({ idem, body: { amount: 404 } });
    assertReplay(t, again, first);
    t.equal(again.body.request_id, first.body.request_id, 'the stored body, with the first request id');
    t.equal(again.headers.get('request-id'), again.body.request_id, 'Request-Id header equals the body request_id');
    t.equal(calls.charges, before + 1, 'the handler ran once');
  });
  await t.test('a retryable error is not stored: the retry runs', async (t) => {
    const idem = freshKey();
    const before = calls.charges;
    const first = await send({ idem, body: { amount: 409 } });
    assertOwnError(t, first, 'IKW-RES-003');
    t.equal(first.body.retryable, true);
    const retry = await send({ idem, body: { amount: 409 } });
    assertOwnError(t, retry, 'IKW-RES-003');
    t.equal(calls.charges, before + 2, 'the retry ran the handler again');
  });
});

t.test('the shape of the key', async (t) => {
  await t.test('over 255 characters', async (t) => {
    const before = calls.charges;
    assertOwnError(t, await send({ idem: 'k'.repeat(256), body: { amount: 1 } }), 'IKW-IDM-001', 'Idempotency-Key');
    assertOwnError(t, await send({ idem: 'k'.repeat(4000), body: { amount: 1 } }), 'IKW-IDM-001', 'Idempotency-Key');
    t.equal(calls.charges, before, 'the handler did not run');
  });
  await t.test('exactly 255 characters', async (t) => {
    const idem = `${freshKey()}-`.padEnd(255, 'k');
    const first = await send({ idem, body: { amount: 1 } });
    assertRan(t, first);
    assertReplay(t, await send({ idem, body: { amount: 1 } }), first);
  });
  for (const [name, idem] of [
    ['empty', ''],
    ['with a space', 'a b'],
    ['not ASCII', 'cl\u00e9'],
  ] as const) {
    await t.test(name, async (t) => {
      assertOwnError(t, await send({ idem, body: { amount: 1 } }), 'IKW-IDM-001', 'Idempotency-Key');
    });
  }
  await t.test('a UUID', async (t) => {
    assertRan(t, await send({ idem: randomUUID(), body: { amount: 1 } }));
  });
  await t.test('ignored on a GET', async (t) => {
    const res = await send({ method: 'GET', idem: 'k'.repeat(300) });
    assertRan(t, res, 200);
  });
});

t.test('required in live where the route says so', async (t) => {
  assertOwnError(t, await send({ path: '/test/payouts', apiKey: merchant.api_keys.live, body: { amount: 1 } }), 'IKW-IDM-004', 'Idempotency-Key');
  assertRan(t, await send({ path: '/test/payouts', apiKey: merchant.api_keys.sandbox, body: { amount: 1 } }));
  const idem = freshKey();
  const first = await send({ path: '/test/payouts', apiKey: merchant.api_keys.live, idem, body: { amount: 1 } });
  assertRan(t, first);
  assertReplay(t, await send({ path: '/test/payouts', apiKey: merchant.api_keys.live, idem, body: { amount: 1 } }), first);
});

t.test('20 parallel requests with the same key and body run the handler exactly once', async (t) => {
  for (const delay of [50, 0]) {
    await t.test(`handler taking ${delay} ms`, async (t) => {
      parallelDelayMs = delay;
      const idem = freshKey();
      const body = { amount: 777, meta: { run: String(delay) } };
      const before = calls.parallel;
      const answers = await Promise.all(Array.from({ length: 20 }, () => send({ path: '/test/parallel', idem, body })));
      t.equal(calls.parallel, before + 1, 'the handler ran exactly once');
      const ran = answers.filter((r) => r.status === 201 && !r.headers.has('idempotent-replayed'));
      t.equal(ran.length, 1, 'one request ran');
      const first = ran[0]!;
      let replays = 0;
      let busy = 0;
      for (const res of answers) {
        assertSane(t, res);
        if (res === first) continue;
        if (res.status === 409) {
          assertOwnError(t, res, 'IKW-IDM-003');
          busy++;
        } else {
          assertReplay(t, res, first);
          replays++;
        }
      }
      t.equal(replays + busy, 19, `the others: ${replays} replays, ${busy} busy`);
      assertReplay(t, await send({ path: '/test/parallel', idem, body }), first);
      t.equal(calls.parallel, before + 1, 'still once');
    });
  }
});

t.test('answers belong to the credential: two users of one merchant never get each other\u2019s token or secret', async (t) => {
  const m = await svc.merchant('Shared merchant');
  await svc.member(m, 'awa@idem.example', PASSWORD, 'owner');
  await svc.member(m, 'bo@idem.example', PASSWORD, 'finance');
  const awa = await signIn('awa@idem.example');
  const bo = await signIn('bo@idem.example');
  const emailOf = async (token: string) => (await svc.request('GET', '/api/v1/auth/me', { key: token })).body.email as string;

  await t.test('switch-merchant: the same key and body', async (t) => {
    const idem = freshKey();
    const switchTo = (token: string) => svc.request('POST', '/api/v1/auth/switch-merchant', { key: token, body: { merchantId: m.id }, headers: { 'idempotency-key': idem } });
    const mine = await switchTo(awa);
    assertRan(t, mine, 200);
    const theirs = await switchTo(bo);
    assertRan(t, theirs, 200);
    t.not(theirs.body.accessToken, mine.body.accessToken, 'another member gets a token of their own');
    t.equal(await emailOf(theirs.body.accessToken), 'bo@idem.example', 'acting as themselves');
    assertReplay(t, await switchTo(awa), mine);
    t.pass('the same user repeating gets their stored answer');
  });

  await t.test('mfa/totp/setup: the same key, each with their own challenge', async (t) => {
    const idem = freshKey();
    const setup = async (token: string, challengeId: string) => svc.request('POST', '/api/v1/auth/mfa/totp/setup', { key: token, body: { challengeId }, headers: { 'idempotency-key': idem } });
    const awaChallenge = await passwordChallenge(svc, awa, 'mfa/totp/setup', PASSWORD);
    const mine = await setup(awa, awaChallenge);
    assertRan(t, mine);
    const theirs = await setup(bo, await passwordChallenge(svc, bo, 'mfa/totp/setup', PASSWORD));
    assertRan(t, theirs);
    t.not(theirs.body.secret, mine.body.secret, 'a secret of their own, not refused for the other member\u2019s key');
    t.notMatch(theirs.body.otpauthUrl, /awa/, 'and nothing of the first user');
    assertReplay(t, await setup(awa, awaChallenge), mine);
    t.pass('the same user repeating gets their stored answer');
    assertReplay(t, await setup(await signIn('awa@idem.example'), awaChallenge), mine);
    t.pass('from another session too: the credential is the user');
  });
});

t.test('a payout retried with another key of the merchant (a key rolled meanwhile) is the same payout, not a second one', async (t) => {
  const m = await svc.merchant('Rolling keys');
  await fund(svc, m.id, 100_000);
  const rolled = await svc.apiKey(m.id, ['payouts.write']);
  const idem = freshKey();
  const body = { amount: 10_000, currency: 'xof', destination: mobileMoney('67') };
  const first = await postPayout(svc, m.api_keys.sandbox, body, { idempotencyKey: idem });
  assertRan(t, first, 200);
  const retried = await postPayout(svc, rolled.secret, body, { idempotencyKey: idem });
  assertRan(t, retried, 200);
  t.equal(retried.body.id, first.body.id, 'the payout the first attempt made');
  const balance = await svc.request('GET', '/api/v1/balance', { key: m.api_keys.sandbox });
  t.equal(balance.body.available.find((b: { currency: string }) => b.currency === 'xof')?.amount, 100_000 - 10_000 - first.body.fee, 'held once');
});

t.test('answers stored before they were scoped by credential replay to the merchant until they expire', async (t) => {
  const idem = freshKey();
  const body = { amount: 77 };
  const first = await send({ idem, body });
  assertRan(t, first);
  // The row as the previous version kept it: no credential, the answer sealed to the merchant's scope.
  const box = new SecretBox(Buffer.alloc(32, 1)); // startService's SECRETS_KEY
  const sealed = box.seal(first.text, JSON.stringify(['idempotency', merchant.id, 'sandbox', 'POST', '/test/charges', idem, 201]));
  await svc.system.knex('idempotency_keys').where({ key: idem }).update({ credential: '', body: sealed });
  const second = await svc.apiKey(merchant.id, ['payouts.write']);
  const before = calls.charges;
  assertReplay(t, await send({ apiKey: second.secret, idem, body }), first);
  assertReplay(t, await send({ idem, body }), first);
  assertOwnError(t, await send({ apiKey: second.secret, idem, body: { amount: 78 } }), 'IKW-IDM-002', 'Idempotency-Key');
  t.equal(calls.charges, before, 'a retry across the upgrade is a replay, not a second run');
  t.equal(
    await svc.system
      .knex('idempotency_keys')
      .where({ key: idem })
      .count<{ count: string }[]>('* as count')
      .then((r) => Number(r[0]!.count)),
    1,
    'and writes no row of its own',
  );
});

// Last: moves the shared clock a day forward.
t.test('after the TTL (24 h) the key runs anew', async (t) => {
  const idem = freshKey();
  const body = { amount: 2400 };
  const before = calls.charges;
  const first = await send({ idem, body });
  assertRan(t, first);
  svc.clock.advance(24 * 3_600_000 - 1_000);
  assertReplay(t, await send({ idem, body }), first);
  t.pass('still replayed a second before the TTL');
  svc.clock.advance(2_000);
  const anew = await send({ idem, body });
  assertRan(t, anew);
  t.not(anew.body.id, first.body.id, 'a new answer');
  t.equal(calls.charges, before + 2, 'the handler ran again');
  assertReplay(t, await send({ idem, body }), anew);
  svc.clock.advance(24 * 3_600_000 + 1_000);
  const other = await send({ idem, body: { amount: 2401 } });
  assertRan(t, other);
  t.pass('an expired key may be used with another body');
  t.ok((await svc.system.idempotency.purgeExpired()) > 0, 'the scheduler’s purge removes the expired keys');
  assertReplay(t, await send({ idem, body: { amount: 2401 } }), other);
  t.pass('and keeps the current one');
});
