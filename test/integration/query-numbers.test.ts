/**
 * Numeric query and path parameters out of range: a number that does not fit (1e309 and other
 * non-finite values, beyond the schema's bounds, beyond 2^53 - 1) is 400 IKW-VAL-001 naming the
 * parameter on every route, never a 500 (packages/http/validation.ts coerces and checks them all).
 */
import fc from 'fast-check';
import t from '#tap';
import { assertError } from '../support/assertions.js';
import { startService } from '../support/system.js';

const svc = await startService(t);
const { key } = await svc.sandboxMerchant('Query numbers');
const headers = { 'x-environment': 'sandbox' };

t.test('GET /api/v1/balance?as_of=1e309 and /api/v1/intelligence/operators?days=1e309 are 400 naming the parameter', async (t) => {
  assertError(t, await svc.request('GET', '/api/v1/balance?as_of=1e309', { key, headers }), 'IKW-VAL-001', 'as_of');
  assertError(t, await svc.request('GET', '/api/v1/intelligence/operators?days=1e309', { key, headers }), 'IKW-VAL-001', 'days');
  assertError(t, await svc.request('GET', '/api/v1/balance?as_of=-1e309', { key, headers }), 'IKW-VAL-001', 'as_of');
  assertError(t, await svc.request('GET', '/api/v1/intelligence/operators?days=Infinity', { key, headers }), 'IKW-VAL-001', 'days');
  const res = await svc.request('GET', '/api/v1/intelligence/operators?days=1e309', { key, headers });
  t.equal(res.body.message, 'days must be <= 90', 'the rule the value breaks, as for any other value out of range');
});

/** Numeric parameters of several families, with the bounds their schemas give. */
const numeric: { path: (value: string) => string; param: string; min: number; max: number }[] = [
  { path: (v) => `/api/v1/balance?as_of=${v}`, param: 'as_of', min: 0, max: 253_402_300_799 },
  { path: (v) => `/api/v1/intelligence/operators?days=${v}`, param: 'days', min: 1, max: 90 },
  { path: (v) => `/api/v1/payment-intents?limit=${v}`, param: 'limit', min: 1, max: 100 },
  { path: (v) => `/api/v1/balance-transactions?created[lte]=${v}`, param: 'created[lte]', min: 0, max: 253_402_300_799 },
  { path: (v) => `/api/v1/merchant/payouts?page=${v}`, param: 'page', min: 1, max: 1_000_000 },
  { path: (v) => `/api/v1/payout-engine/batches/pob_x/items?starting_after=${v}`, param: 'starting_after', min: 0, max: 10_000 },
  { path: (v) => `/api/template-engine/templates/tpl_x/versions/${v}/publish`, param: 'version', min: 1, max: 1_000_000 },
];

/** Text that coerces to a number no schema allows: non-finite, past a bound, or past 2^53 - 1. */
const outOfRange = (min: number, max: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('1e309', '-1e309', 'Infinity', '-Infinity', '1e400', '9'.repeat(400), '-' + '9'.repeat(400), '9007199254740993', '-9007199254740993', '1e20'),
    fc.bigInt({ min: BigInt(max) + 1n, max: 10n ** 30n }).map(String),
    fc.bigInt({ min: -(10n ** 30n), max: BigInt(min) - 1n }).map(String),
    fc
      .integer({ min: 1, max: 308 })
      .map((e) => `${max < 10 ** e ? 1 : 9}e${e}`)
      .filter((s) => Number(s) > max),
  );

t.test('property: every out-of-range numeric query or path parameter is 400 IKW-VAL-001 naming it', async (t) => {
  for (const p of numeric) {
    await t.test(p.param, async (t) => {
      const details = await fc.check(
        fc.asyncProperty(outOfRange(p.min, p.max), async (value) => {
          const method = p.param === 'version' ? 'POST' : 'GET';
          const res = await svc.request(method, p.path(value), { key, headers });
          if (res.status !== 400 || res.body?.code !== 'IKW-VAL-001' || res.body?.param !== p.param) {
            throw new Error(`${method} ${p.path(value)} → ${res.status} ${res.text.slice(0, 200)}`);
          }
        }),
        { seed: 20260102, numRuns: 40, endOnFailure: true },
      );
      t.notOk(details.failed, details.failed ? String(details.errorInstance) : 'every value refused');
    });
  }
});

t.test('in range, the same parameters are taken', async (t) => {
  t.equal((await svc.request('GET', '/api/v1/balance?as_of=1767225600', { key, headers })).status, 200);
  t.equal((await svc.request('GET', '/api/v1/intelligence/operators?days=90', { key, headers })).status, 200);
  t.equal((await svc.request('GET', '/api/v1/payment-intents?limit=100', { key, headers })).status, 200);
});
