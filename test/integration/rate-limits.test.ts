/**
 * Rate limits per credential and per client address: RateLimit-* headers on every answer, 429
 * IKW-LIM-001 with Retry-After when over, windows that reset with the clock, refused credentials
 * counted too, and one count shared by every API process on the database.
 */
import type { AddressInfo } from 'node:net';
import t from '#tap';
import { buildApi } from '../../services/api/app.js';
import { listen } from '../../services/api/server.js';
import { startService } from '../support/system.js';

const env = { RATE_LIMIT: '3/1s', RATE_LIMIT_ADDRESS: '5/1s' };

t.test('a credential gets its limit per window, with headers, then 429 until the window turns', async (t) => {
  const svc = await startService(t, { env });
  const key = (await svc.merchant()).api_keys.sandbox;
  for (const remaining of ['2', '1', '0']) {
    const res = await svc.request('GET', '/api/v1/balance', { key });
    t.equal(res.status, 200);
    t.equal(res.headers.get('ratelimit-limit'), '3');
    t.equal(res.headers.get('ratelimit-remaining'), remaining);
    t.equal(res.headers.get('ratelimit-reset'), '1');
  }
  const over = await svc.request('GET', '/api/v1/balance', { key });
  t.equal(over.status, 429);
  t.equal(over.body.code, 'IKW-LIM-001');
  t.equal(over.body.retryable, true);
  t.equal(over.headers.get('retry-after'), '1');
  t.equal(over.headers.get('ratelimit-remaining'), '0');
  svc.clock.advance(1_000);
  t.equal((await svc.request('GET', '/api/v1/balance', { key })).status, 200, 'a new window');
});

t.test('the client address has its own limit, over every credential, refused ones included', async (t) => {
  const svc = await startService(t, { env });
  const a = (await svc.merchant('A')).api_keys.sandbox;
  const b = (await svc.merchant('B')).api_keys.sandbox;
  for (let i = 0; i < 3; i++) t.equal((await svc.request('GET', '/api/v1/balance', { key: a })).status, 200);
  t.equal((await svc.request('GET', '/api/v1/balance', { key: b })).status, 200, 'another key from the same address');
  const bad = await svc.request('GET', '/api/v1/balance', { key: 'sk_test_wrongwrongwrongwrongwrongwrong' });
  t.equal(bad.status, 401, 'the fifth request of the address, refused for its key, still counts');
  const guess = await svc.request('GET', '/api/v1/balance', { key: 'sk_test_guessguessguessguessguessguess' });
  t.equal(guess.status, 429, 'guessing keys is limited like anything else');
  t.equal((await svc.request('GET', '/healthz')).status, 429, 'public routes count against the address too');
  svc.clock.advance(1_000);
  t.equal((await svc.request('GET', '/healthz')).status, 200);
});

t.test('every API process counts against the same windows', async (t) => {
  const svc = await startService(t, { env });
  const key = (await svc.merchant()).api_keys.sandbox;
  // A second API process on the same database.
  const other = await listen(buildApi(svc.system), 0, svc.system.log, '127.0.0.1');
  t.teardown(() => {
    other.closeAllConnections();
    return new Promise((r) => other.close(r));
  });
  const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  const viaOther = () => fetch(`${otherUrl}/api/v1/balance`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => (await r.arrayBuffer(), r.status));
  t.equal((await svc.request('GET', '/api/v1/balance', { key })).status, 200);
  t.equal(await viaOther(), 200);
  t.equal((await svc.request('GET', '/api/v1/balance', { key })).status, 200);
  t.equal(await viaOther(), 429, 'the fourth request, whichever process answers it');
});

t.test('sign-in failures are throttled per e-mail address, from any address; a success resets the count', async (t) => {
  const svc = await startService(t, { env: { RATE_LIMIT_SIGN_IN: '3/15m' } });
  const m = await svc.merchant();
  await svc.member(m, 'owner@shop.example', 'correct horse');
  const attempt = (email: string, password: string) => svc.request('POST', '/api/v1/auth/login', { body: { email, password } });
  t.equal((await attempt('owner@shop.example', 'wrong password')).status, 401);
  t.equal((await attempt('OWNER@shop.example', 'wrong again!')).status, 401, 'the case of the address does not make a new subject');
  const third = await attempt('owner@shop.example', 'correct horse');
  t.equal(third.status, 200);
  t.equal(third.headers.get('ratelimit-remaining'), '0', 'the success itself was counted');
  for (let i = 0; i < 3; i++) t.equal((await attempt('owner@shop.example', 'wrong password')).status, 401, `failure ${i + 1} after the reset`);
  const over = await attempt('owner@shop.example', 'correct horse');
  t.match(over, { status: 429, body: { code: 'IKW-LIM-001' } }, 'three failures in a row: even the right password waits');
  t.equal(over.headers.get('retry-after'), String(15 * 60));
  t.equal((await attempt('other@shop.example', 'wrong password')).status, 401, 'another account is not locked with it');
  t.equal((await attempt('owner@shop.example', 'short')).status, 400, 'an invalid body is refused before it counts');
  svc.clock.advance(15 * 60_000);
  t.equal((await attempt('owner@shop.example', 'correct horse')).status, 200, 'the next window lets the owner in');
});

t.test('sign-in attempts from one client address across many accounts are throttled too', async (t) => {
  const svc = await startService(t, { env: { RATE_LIMIT_SIGN_IN: '2/15m', RATE_LIMIT_SIGN_IN_ADDRESS: '20/15m' } });
  // Twenty accounts tried once each from this address: the address's budget is spent.
  for (let i = 0; i < 20; i++) {
    t.equal((await svc.request('POST', '/api/v1/auth/login', { body: { email: `u${i}@shop.example`, password: 'guessing!' } })).status, 401);
  }
  const over = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'u99@shop.example', password: 'guessing!' } });
  t.match(over, { status: 429, body: { code: 'IKW-LIM-001' } });
  t.ok(Number(over.headers.get('retry-after')) > 0);
});

/** A failed sign-in of a new account each time (so only the address bucket can refuse), as if from `client` behind the proxy. */
const guessFrom = (svc: Awaited<ReturnType<typeof startService>>, client: string, i: number) =>
  svc.request('POST', '/api/v1/auth/login', { body: { email: `u${i}@shop.example`, password: 'guessing!' }, headers: { 'x-forwarded-for': client } });

t.test('behind a trusted proxy (TRUST_PROXY), each client has its own sign-in address bucket', async (t) => {
  // The test client reaches the service from 127.0.0.1: here, the proxy.
  const svc = await startService(t, { env: { TRUST_PROXY: '127.0.0.0/8', RATE_LIMIT_SIGN_IN_ADDRESS: '3/15m' } });
  for (let i = 0; i < 3; i++) t.equal((await guessFrom(svc, '203.0.113.7', i)).status, 401);
  t.match(await guessFrom(svc, '203.0.113.7', 3), { status: 429, body: { code: 'IKW-LIM-001' } }, 'the first client has spent its budget');
  t.equal((await guessFrom(svc, '198.51.100.9', 4)).status, 401, 'another client behind the same proxy has not');
  // A client's own X-Forwarded-For entries before the proxy's are not believed: the proxy appends the peer it saw.
  t.equal((await guessFrom(svc, '198.51.100.9, 203.0.113.7', 5)).status, 429, 'the address the proxy saw counts, not one the client wrote');
});

t.test('X-Forwarded-For from a peer that is not a trusted proxy is ignored', async (t) => {
  const svc = await startService(t, { env: { TRUST_PROXY: '10.0.0.0/8', RATE_LIMIT_SIGN_IN_ADDRESS: '3/15m' } });
  for (let i = 0; i < 3; i++) t.equal((await guessFrom(svc, `203.0.113.${i}`, i)).status, 401);
  t.match(await guessFrom(svc, '203.0.113.99', 3), { status: 429, body: { code: 'IKW-LIM-001' } }, 'one bucket: the peer, whatever it claims');
});

t.test('RATE_LIMIT_SIGN_IN_ADDRESS=off turns the sign-in address bucket off, the per-account one stays', async (t) => {
  const svc = await startService(t, { env: { RATE_LIMIT_SIGN_IN: '2/15m', RATE_LIMIT_SIGN_IN_ADDRESS: 'off' } });
  for (let i = 0; i < 30; i++) t.equal((await guessFrom(svc, '203.0.113.7', i)).status, 401, `account ${i}`);
  t.equal((await guessFrom(svc, '203.0.113.7', 0)).status, 401);
  t.match(await guessFrom(svc, '203.0.113.7', 0), { status: 429, body: { code: 'IKW-LIM-001' } }, 'one account still gets two tries');
});
