/**
 * Versioning rule 2: `/api/merchant/*` answers exactly as `/api/v1/merchant/*`: the same objects,
 * the same errors, one idempotency record across both spellings, and tenant isolation.
 */
import t from '#tap';
import { assertError, assertOk } from '../support/assertions.js';
import { startService } from '../support/system.js';

const svc = await startService(t);

t.test('the legacy merchant paths are the same operations', async (t) => {
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
  const body = { name: 'Ada', email: 'ada@example.com' };
  const created = await svc.request('POST', '/api/merchant/products', { key, body: { name: 'Plan', prices: [{ currency: 'xof', unit_amount: 5_000 }] }, headers: { 'idempotency-key': 'legacy-1' } });
  assertOk(t, created);
  t.match(created.body, { id: /^prod_/, object: 'product', name: 'Plan' });
  const replay = await svc.request('POST', '/api/v1/merchant/products', { key, body: { name: 'Plan', prices: [{ currency: 'xof', unit_amount: 5_000 }] }, headers: { 'idempotency-key': 'legacy-1' } });
  t.equal(replay.headers.get('idempotent-replayed'), 'true', 'one idempotency record for both spellings');
  t.same(replay.body, created.body);

  for (const path of ['/products', `/products/${created.body.id}`, '/products?limit=1&page=1', '/invoices', '/subscriptions', '/customers', '/payouts', '/settings/payouts']) {
    const legacy = await svc.request('GET', `/api/merchant${path}`, { key });
    const v1 = await svc.request('GET', `/api/v1/merchant${path}`, { key });
    t.equal(legacy.status, 200, path);
    t.same(legacy.body, v1.body, `${path}: the same answer`);
  }
  const missing = await svc.request('GET', '/api/merchant/products/prod_000000000000000000000000', { key });
  assertError(t, missing, 'IKW-RES-001');
  t.same({ ...missing.body, request_id: null }, { ...(await svc.request('GET', '/api/v1/merchant/products/prod_000000000000000000000000', { key })).body, request_id: null });
  assertError(t, await svc.request('PUT', '/api/merchant/products', { key, body }), 'IKW-RTE-002');
  const unknown = await svc.request('GET', '/api/merchant/nothing-here', { key });
  assertError(t, unknown, 'IKW-RTE-001');
  t.match(unknown.body.message, 'GET /api/merchant/nothing-here', 'the path as the client wrote it');
  assertError(t, await svc.request('GET', '/api/merchant/products'), 'IKW-AUT-001');

  const other = await svc.merchant('Other');
  assertError(t, await svc.request('GET', `/api/merchant/products/${created.body.id}`, { key: other.api_keys.sandbox }), 'IKW-RES-001');
});
