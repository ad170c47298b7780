/**
 * The configuration family through the real server: countries with the merchant's activations;
 * activations created, replaced (PUT), deleted, and enforced on payment intents and payouts (a
 * country not activated for a direction, an amount out of bounds); feature flags, which only the
 * platform operator credential made by `bin/sika admin keys create` may change, and which merchants
 * read as they apply to them; another merchant's activation is 404 unless the operator names it.
 */
import t from '#tap';
import { derivedUuid } from '#packages/core/ids.js';
import { countryActivationStream } from '#packages/families/platform/country-activation/events.js';
import { createAdminKey, revokeAdminKey } from '#packages/families/platform/platform-admin/commands.js';
import { countryActivationsProjection } from '#packages/families/platform/read/country-activations.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { startProcess } from '../../support/child-process.js';
import { engine, walletInstruction } from '../../support/payout-engine.js';
import { fund, mobileMoney, postPayout } from '../../support/payouts.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const BASE = '/api/v1/configuration';
const call = (key: string, method: string, path: string, body?: unknown) => svc.request(method, `${BASE}${path}`, { key, ...(body !== undefined ? { body } : {}) });

t.test('activations: create, read, replace, delete; countries show them', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const created = await call(key, 'POST', '/activations', { countryCode: 'sn', enabledForPayIn: true, enabledForPayout: false, minAmount: 500, maxAmount: 100_000 });
  assertOk(t, created);
  t.match(created.body, { object: 'country_activation', merchantId: merchant.id, countryCode: 'SN', currencyIso: 'XOF', enabledForPayIn: true, enabledForPayout: false, minAmount: 500, maxAmount: 100_000, livemode: false });
  t.match(created.body.id, /^[0-9a-f-]{36}$/);
  assertError(t, await call(key, 'POST', '/activations', { countryCode: 'SN' }), 'IKW-CFG-003', 'countryCode');
  assertError(t, await call(key, 'POST', '/activations', { countryCode: 'ZZ' }), 'IKW-VAL-004', 'countryCode');
  assertError(t, await call(key, 'POST', '/activations', { countryCode: 'CI', currencyIso: 'GHS' }), 'IKW-VAL-009', 'currencyIso');
  assertError(t, await call(key, 'POST', '/activations', { countryCode: 'CI', minAmount: 10, maxAmount: 5 }), 'IKW-VAL-001', 'minAmount');
  const id = created.body.id as string;
  assertOk(t, await call(key, 'GET', `/activations/${id}`));
  const replaced = await call(key, 'PUT', `/activations/${id}`, { enabledForPayout: true, maxAmount: null });
  assertOk(t, replaced);
  t.match(replaced.body, { enabledForPayIn: true, enabledForPayout: true, minAmount: 500, maxAmount: null });
  assertError(t, await call(key, 'PUT', `/activations/${id}`, { countryCode: 'CI' }), 'IKW-VAL-002', 'countryCode');
  const list = await call(key, 'GET', '/activations?countryCode=sn');
  t.same(
    list.body.data.map((a: { id: string }) => a.id),
    [id],
  );
  const countries = await call(key, 'GET', '/countries');
  assertOk(t, countries);
  const sn = countries.body.data.find((c: { countryCode: string }) => c.countryCode === 'SN');
  t.match(sn, { object: 'country_configuration', currencyIso: 'XOF', activation: { id } });
  t.ok(
    sn.operators.some((o: { code: string; payIn: boolean; payout: boolean }) => o.code === 'e_money' && o.payIn && !o.payout),
    'operators with their directions',
  );
  t.equal(countries.body.data.find((c: { countryCode: string }) => c.countryCode === 'CI').activation, null, 'no activation: the catalog’s defaults');
  assertOk(t, await call(key, 'DELETE', `/activations/${id}`));
  assertError(t, await call(key, 'GET', `/activations/${id}`), 'IKW-RES-001');
  assertError(t, await call(key, 'DELETE', `/activations/${id}`), 'IKW-RES-001');
});

t.test('enforced on payment intents, payouts and batch instructions', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 1_000_000);
  const intent = (amount: number, country = 'SN', currency = 'xof') => svc.request('POST', '/api/v1/payment-intents', { key, body: { amount, currency, transaction_country: country } });
  assertOk(t, await intent(5_000));
  const activation = (await call(key, 'POST', '/activations', { countryCode: 'SN', enabledForPayIn: false, enabledForPayout: true, minAmount: 1_000, maxAmount: 50_000 })).body;
  assertError(t, await intent(5_000), 'IKW-CFG-001', 'transaction_country');
  assertOk(t, await intent(5_000, 'CI'));
  assertError(t, await postPayout(svc, key, { amount: 500, currency: 'xof', destination: mobileMoney() }), 'IKW-CFG-002', 'amount');
  assertError(t, await postPayout(svc, key, { amount: 60_000, currency: 'xof', destination: mobileMoney() }), 'IKW-CFG-002', 'amount');
  assertOk(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination: mobileMoney() }));
  const batch = await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(5_000), walletInstruction(900), walletInstruction(70_000)] });
  assertError(t, batch, 'IKW-PEN-001');
  t.same(
    batch.body.errors.map((e: { index: number; code: string; param: string }) => [e.index, e.code, e.param]),
    [
      [1, 'IKW-CFG-002', 'instructions.1.amount'],
      [2, 'IKW-CFG-002', 'instructions.2.amount'],
    ],
  );
  await call(key, 'PUT', `/activations/${activation.id}`, { enabledForPayIn: true, enabledForPayout: false });
  assertOk(t, await intent(5_000));
  assertError(t, await intent(500), 'IKW-CFG-002', 'amount');
  assertError(t, await postPayout(svc, key, { amount: 5_000, currency: 'xof', destination: mobileMoney() }), 'IKW-CFG-001', 'destination');
});

t.test('the platform operator credential from bin/sika: feature flags, and any merchant’s activations', async (t) => {
  const cli = startProcess('bin/cli.js', { DATABASE_URL: svc.system.config.databaseUrl!, LOG_LEVEL: 'silent' }, ['admin', 'keys', 'create', '--name', 'ops', '--json']);
  t.equal(await cli.exit, 0, 'bin/sika admin keys create');
  const admin = JSON.parse(cli.output().trim().split('\n').pop()!) as { id: string; secret: string };
  t.match(admin.secret, /^sk_admin_[0-9A-Za-z]{43}$/);
  const { merchant, key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant('Other');

  const global = await call(admin.secret, 'POST', '/feature-flags', { key: 'batch_payouts', isEnabled: true, description: 'Bulk payouts' });
  assertOk(t, global);
  t.match(global.body, { object: 'feature_flag', key: 'batch_payouts', isEnabled: true, merchantId: null });
  const override = await call(admin.secret, 'POST', '/feature-flags', { key: 'batch_payouts', isEnabled: false, merchantId: merchant.id });
  assertOk(t, override);
  assertError(t, await call(key, 'POST', '/feature-flags', { key: 'batch_payouts', isEnabled: true }), 'IKW-AUT-009');
  assertError(t, await call(key, 'DELETE', `/feature-flags/${override.body.id}`), 'IKW-AUT-009');
  assertError(t, await call(admin.secret, 'POST', '/feature-flags', { key: 'x', merchantId: 'acct_nobody' }), 'IKW-RES-001', 'merchantId');
  t.same(
    (await call(key, 'GET', '/feature-flags')).body.data.map((f: { key: string; isEnabled: boolean }) => [f.key, f.isEnabled]),
    [['batch_payouts', false]],
    'a merchant reads its own override',
  );
  t.same(
    (await call(other.key, 'GET', '/feature-flags')).body.data.map((f: { key: string; isEnabled: boolean }) => [f.key, f.isEnabled]),
    [['batch_payouts', true]],
    'another the platform-wide value',
  );
  t.equal((await call(admin.secret, 'GET', '/feature-flags')).body.data.length, 2, 'the operator sees every flag');
  assertOk(t, await call(admin.secret, 'DELETE', `/feature-flags/${override.body.id}`));
  t.same(
    (await call(key, 'GET', '/feature-flags')).body.data.map((f: { isEnabled: boolean }) => f.isEnabled),
    [true],
    'the override gone, the platform-wide value applies',
  );
  assertError(t, await call(admin.secret, 'DELETE', `/feature-flags/${override.body.id}`), 'IKW-RES-001');

  // Other merchants' activations: the operator names the merchant; a merchant cannot.
  assertError(t, await call(admin.secret, 'POST', '/activations', { countryCode: 'CI' }), 'IKW-CFG-004', 'merchantId');
  const theirs = await call(admin.secret, 'POST', '/activations', { countryCode: 'CI', enabledForPayIn: false, merchantId: other.merchant.id });
  assertOk(t, theirs);
  t.equal(theirs.body.merchantId, other.merchant.id);
  assertError(t, await call(key, 'POST', '/activations', { countryCode: 'CI', merchantId: other.merchant.id }), 'IKW-AUT-009', 'merchantId');
  assertError(t, await call(key, 'GET', `/activations/${theirs.body.id}`), 'IKW-RES-001');
  assertError(t, await call(key, 'PUT', `/activations/${theirs.body.id}`, { enabledForPayIn: true }), 'IKW-RES-001');
  assertError(t, await call(key, 'DELETE', `/activations/${theirs.body.id}`), 'IKW-RES-001');
  assertOk(t, await call(admin.secret, 'PUT', `/activations/${theirs.body.id}?merchantId=${other.merchant.id}`, { maxAmount: 10_000 }));
  t.equal((await call(other.key, 'GET', `/activations/${theirs.body.id}`)).body.maxAmount, 10_000, 'the merchant reads what the operator set');
  assertError(t, await svc.request('POST', '/api/v1/payment-intents', { key: other.key, body: { amount: 5_000, currency: 'xof', transaction_country: 'CI' } }), 'IKW-CFG-001');

  // The operator credential is nobody's merchant key, and a revoked one is no credential.
  assertError(t, await svc.request('GET', '/api/v1/balance', { key: admin.secret }), 'IKW-AUT-002');
  const second = await createAdminKey(svc.system.store, svc.clock, 'temp', 'test');
  assertOk(t, await call(second.secret, 'GET', '/feature-flags'));
  await revokeAdminKey(svc.system.store, svc.clock, second.id, 'test');
  assertError(t, await call(second.secret, 'GET', '/feature-flags'), 'IKW-AUT-002');
});

t.test('an activation the platform operator set is the operator’s: the merchant can neither change nor delete it', async (t) => {
  const admin = await createAdminKey(svc.system.store, svc.clock, 'ops', 'test');
  const { merchant, key } = await svc.sandboxMerchant();
  const asOperator = (method: string, path: string, body?: unknown) => call(admin.secret, method, `${path}${path.includes('?') ? '&' : '?'}merchantId=${merchant.id}`, body);

  const set = await call(admin.secret, 'POST', '/activations', { countryCode: 'SN', maxAmount: 50_000, merchantId: merchant.id });
  assertOk(t, set);
  t.equal(set.body.setBy, 'operator');
  const id = set.body.id as string;
  t.match((await call(key, 'GET', `/activations/${id}`)).body, { setBy: 'operator', maxAmount: 50_000 }, 'the merchant reads who set it');
  assertError(t, await call(key, 'PUT', `/activations/${id}`, { maxAmount: 1_000_000 }), 'IKW-CFG-005', 'id');
  assertError(t, await call(key, 'DELETE', `/activations/${id}`), 'IKW-CFG-005', 'id');
  t.match((await call(key, 'GET', `/activations/${id}`)).body, { maxAmount: 50_000 }, 'still the operator’s bounds');
  assertError(t, await postPayout(svc, key, { amount: 60_000, currency: 'xof', destination: mobileMoney() }), 'IKW-CFG-002', 'amount');
  const changed = await asOperator('PUT', `/activations/${id}`, { maxAmount: 100_000 });
  assertOk(t, changed);
  t.match(changed.body, { maxAmount: 100_000, setBy: 'operator' }, 'the operator can still change it');
  assertOk(t, await asOperator('DELETE', `/activations/${id}`));

  const own = await call(key, 'POST', '/activations', { countryCode: 'SN', maxAmount: 10_000 });
  assertOk(t, own);
  t.equal(own.body.setBy, 'merchant', 'its own again once the operator deleted it');
  assertOk(t, await call(key, 'PUT', `/activations/${own.body.id}`, { maxAmount: 20_000 }), 200);
  const taken = await asOperator('PUT', `/activations/${own.body.id}`, { maxAmount: 30_000 });
  t.equal(taken.body.setBy, 'operator', 'the operator changing a merchant’s activation makes it the operator’s');
  assertError(t, await call(key, 'PUT', `/activations/${own.body.id}`, { maxAmount: 40_000 }), 'IKW-CFG-005', 'id');

  const mine = await call(key, 'POST', '/activations', { countryCode: 'CI' });
  assertOk(t, await call(key, 'PUT', `/activations/${mine.body.id}`, { enabledForPayout: false }));
  assertOk(t, await call(key, 'DELETE', `/activations/${mine.body.id}`));
  t.pass('a merchant’s own activations stay its to change and delete');
});

t.test('activations recorded before who set them was: the actor of their events says', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const owner = { merchantId: merchant.id, environment: 'sandbox' as const };
  const record = async (countryCode: string, currencyIso: string, actor: string) => {
    const id = derivedUuid(`country_activation|${merchant.id}|sandbox|${countryCode}|${currencyIso}`);
    const data = { id, ...owner, countryCode, currencyIso, enabledForPayIn: true, enabledForPayout: true, minAmount: null, maxAmount: 9_000, createdAt: svc.clock.now().toISOString() };
    const object = { id, object: 'country_activation', merchantId: merchant.id, countryCode, currencyIso, enabledForPayIn: true, enabledForPayout: true, minAmount: null, maxAmount: 9_000, livemode: false, created: 0, updated: 0 };
    await svc.system.store.append(countryActivationStream(id), [{ type: 'country_activation.created', data: { ...data, object }, metadata: { merchant_id: merchant.id, environment: 'sandbox', actor } }], { expectedVersion: 'no_stream' });
    return id;
  };
  const operators = await record('SN', 'XOF', 'admin:key_old');
  const merchants = await record('CI', 'XOF', 'key_merchant');
  t.equal((await call(key, 'GET', `/activations/${operators}`)).body.setBy, 'operator');
  t.equal((await call(key, 'GET', `/activations/${merchants}`)).body.setBy, 'merchant');
  assertError(t, await call(key, 'PUT', `/activations/${operators}`, { maxAmount: 1 }), 'IKW-CFG-005', 'id');
  assertError(t, await call(key, 'DELETE', `/activations/${operators}`), 'IKW-CFG-005', 'id');
  assertOk(t, await call(key, 'PUT', `/activations/${merchants}`, { maxAmount: 1 }));

  // The migration gives rows from before it their setter from the same events.
  const { knex } = svc.system;
  await knex('read.country_activations')
    .whereIn('id', [operators, merchants])
    .update({ object: knex.raw(`(object::jsonb - 'setBy')::json`) });
  const migration = countryActivationsProjection.migrations.find((m) => m.name === 'country_activations/002-set-by')!;
  await knex.transaction((trx) => migration.up(trx));
  t.same(
    (await knex('read.country_activations').whereIn('id', [operators, merchants]).orderBy('country_code')).map((r: { country_code: string; object: { setBy: string } }) => [r.country_code, r.object.setBy]),
    [
      ['CI', 'merchant'],
      ['SN', 'operator'],
    ],
  );
});

t.test('Idempotency-Key on activation create: one activation, the answer replayed', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const first = await svc.request('POST', `${BASE}/activations`, { key, body: { countryCode: 'GH' }, headers: { 'idempotency-key': 'act-1' } });
  const second = await svc.request('POST', `${BASE}/activations`, { key, body: { countryCode: 'GH' }, headers: { 'idempotency-key': 'act-1' } });
  assertOk(t, first);
  t.equal(second.body.id, first.body.id);
  t.equal(second.headers.get('idempotent-replayed'), 'true');
});
