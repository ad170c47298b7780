/**
 * Payout engine recipients through the real server: saved beneficiaries checked against the
 * catalog, listed, updated (a new destination checked again), archived (then refused in batches),
 * another merchant's recipient is 404, and an Idempotency-Key creates one recipient.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { engine } from '../../support/payout-engine.js';
import { startService } from '../../support/system.js';

const svc = await startService(t);
const { key } = await svc.sandboxMerchant();
const other = await svc.sandboxMerchant('Other');

const wallet = { display_name: 'Awa Diop', destination_type: 'mobile_money', country: 'sn', operator: 'orange_money', msisdn: '77 123 45 67' };

t.test('create: a mobile money recipient is normalised, its currency the country’s', async (t) => {
  const res = await engine(svc, key, 'POST', '/recipients', wallet);
  assertOk(t, res);
  t.match(res.body, {
    object: 'payout_recipient',
    display_name: 'Awa Diop',
    destination_type: 'mobile_money',
    currency: 'xof',
    country: 'SN',
    operator: 'orange_money',
    msisdn: '+221771234567',
    bank_code: null,
    status: 'active',
    livemode: false,
  });
  t.match(res.body.id, /^rcp_[0-9A-Za-z]{24}$/);
  const got = await engine(svc, key, 'GET', `/recipients/${res.body.id}`);
  assertOk(t, got);
  t.same(got.body, res.body, 'retrieve answers the same object');
  t.same(Object.keys(got.body), ['id', 'object', 'display_name', 'destination_type', 'currency', 'country', 'operator', 'msisdn', 'bank_code', 'account_number', 'account_name', 'status', 'created', 'updated', 'livemode']);
});

t.test('create: a bank recipient needs its currency and bank fields', async (t) => {
  const bank = { display_name: 'Moussa SARL', destination_type: 'bank', bank_code: 'SN012', account_number: '0123 4567 8901', account_name: 'Moussa SARL' };
  assertError(t, await engine(svc, key, 'POST', '/recipients', bank), 'IKW-VAL-001', 'currency');
  const res = await engine(svc, key, 'POST', '/recipients', { ...bank, currency: 'XOF' });
  assertOk(t, res);
  t.match(res.body, { destination_type: 'bank', currency: 'xof', account_number: '012345678901', country: null, msisdn: null });
});

t.test('create: each refusal names its field', async (t) => {
  assertError(t, await engine(svc, key, 'POST', '/recipients', { ...wallet, msisdn: '12345' }), 'IKW-VAL-007', 'msisdn');
  assertError(t, await engine(svc, key, 'POST', '/recipients', { ...wallet, operator: 'nope' }), 'IKW-VAL-005', 'operator');
  assertError(t, await engine(svc, key, 'POST', '/recipients', { ...wallet, country: 'ZZ' }), 'IKW-VAL-004', 'country');
  assertError(t, await engine(svc, key, 'POST', '/recipients', { ...wallet, currency: 'ghs' }), 'IKW-VAL-009', 'currency');
  assertError(t, await engine(svc, key, 'POST', '/recipients', { ...wallet, bank_code: 'X' }), 'IKW-VAL-002', 'bank_code');
  assertError(t, await engine(svc, key, 'POST', '/recipients', { display_name: 'x' }), 'IKW-VAL-001', 'destination_type');
  assertError(t, await engine(svc, key, 'POST', '/recipients', { ...wallet, surprise: 1 }), 'IKW-VAL-002', 'surprise');
});

t.test('list, update, archive', async (t) => {
  const created = (await engine(svc, key, 'POST', '/recipients', { ...wallet, display_name: 'To change' })).body;
  const renamed = await engine(svc, key, 'PATCH', `/recipients/${created.id}`, { display_name: 'Changed', msisdn: '+221 77 123 45 99' });
  assertOk(t, renamed);
  t.match(renamed.body, { display_name: 'Changed', msisdn: '+221771234599', operator: 'orange_money' });
  assertError(t, await engine(svc, key, 'PATCH', `/recipients/${created.id}`, { msisdn: '1' }), 'IKW-VAL-001', 'msisdn');
  assertError(t, await engine(svc, key, 'PATCH', `/recipients/${created.id}`, { msisdn: '+221 12' }), 'IKW-VAL-007', 'msisdn');
  const toBank = await engine(svc, key, 'PATCH', `/recipients/${created.id}`, { destination_type: 'bank', currency: 'xof', bank_code: 'SN1', account_number: '99', account_name: 'Changed' });
  assertOk(t, toBank);
  t.match(toBank.body, { destination_type: 'bank', country: null, msisdn: null, account_number: '99' });

  const archived = await engine(svc, key, 'POST', `/recipients/${created.id}/archive`);
  assertOk(t, archived);
  t.equal(archived.body.status, 'archived');
  assertOk(t, await engine(svc, key, 'POST', `/recipients/${created.id}/archive`));
  assertError(t, await engine(svc, key, 'PATCH', `/recipients/${created.id}`, { display_name: 'x' }), 'IKW-RES-002', 'id');

  const list = await engine(svc, key, 'GET', '/recipients?limit=100');
  assertOk(t, list);
  t.equal(list.body.object, 'list');
  t.ok(list.body.data.length >= 3);
  t.equal(list.body.data[0].id, created.id, 'newest first');
  const onlyArchived = await engine(svc, key, 'GET', '/recipients?status=archived');
  t.same(
    onlyArchived.body.data.map((r: { id: string }) => r.id),
    [created.id],
  );
  assertError(t, await engine(svc, key, 'GET', '/recipients?status=gone'), 'IKW-VAL-001');
});

t.test("another merchant's recipient is 404 everywhere", async (t) => {
  const mine = (await engine(svc, key, 'POST', '/recipients', wallet)).body;
  assertError(t, await engine(svc, other.key, 'GET', `/recipients/${mine.id}`), 'IKW-RES-001');
  assertError(t, await engine(svc, other.key, 'PATCH', `/recipients/${mine.id}`, { display_name: 'x' }), 'IKW-RES-001');
  assertError(t, await engine(svc, other.key, 'POST', `/recipients/${mine.id}/archive`), 'IKW-RES-001');
  const theirs = await engine(svc, other.key, 'GET', '/recipients');
  t.notOk(
    theirs.body.data.some((r: { id: string }) => r.id === mine.id),
    'not in their list',
  );
  assertError(t, await engine(svc, key, 'GET', '/recipients/rcp_000000000000000000000000'), 'IKW-RES-001');
});

t.test('Idempotency-Key: one recipient, the answer replayed', async (t) => {
  const first = await engine(svc, key, 'POST', '/recipients', wallet, 'rcp-key-1');
  const second = await engine(svc, key, 'POST', '/recipients', wallet, 'rcp-key-1');
  assertOk(t, second);
  t.equal(second.body.id, first.body.id);
  t.equal(second.headers.get('idempotent-replayed'), 'true');
  assertError(t, await engine(svc, key, 'POST', '/recipients', { ...wallet, display_name: 'Else' }, 'rcp-key-1'), 'IKW-IDM-002');
});

t.test('the payout scopes: a read-only key reads and cannot write', async (t) => {
  const { merchant } = await svc.sandboxMerchant('Scoped');
  const readOnly = await svc.apiKey(merchant.id, ['payouts.read']);
  assertOk(t, await engine(svc, readOnly.secret, 'GET', '/recipients'));
  assertError(t, await engine(svc, readOnly.secret, 'POST', '/recipients', wallet), 'IKW-AUT-004');
  assertError(t, await svc.request('GET', '/api/v1/payout-engine/recipients', { key }), 'IKW-AUT-006');
});
