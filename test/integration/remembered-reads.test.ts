/**
 * Reads remembered per process and evicted by events (docs/performance.md): a presented API key is
 * read from read.api_keys once and its revocation takes effect at the next request, in every
 * process as soon as the read model's notification reaches it, and a second at most if none does,
 * even over a read model that lags behind the log (EventStoreDB's projector); the payment
 * gates (capabilities, activations) are read once and a change refuses at once; changes made by
 * another process arrive through the log; so do the payout settings (confirms' default return URL,
 * whether API keys may pay inline destinations).
 */
import t from '#tap';
import { revokeApiKey } from '#packages/families/merchants/merchant/commands.js';
import { PaymentCapabilities } from '#packages/families/platform/payment-capability/commands.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { API_KEY_REMEMBER_MS } from '#packages/families/merchants/read/api-key-cache.js';
import { API_KEY_ENDS_CHANNEL } from '#packages/families/merchants/read/api-keys.js';
import { ALL_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { inlineProjections } from '#packages/read-models/runner.js';
import { assertError, assertOk } from '../support/assertions.js';
import { confirm, createIntent, mobileMoney as paymentWallet, snNumber } from '../support/payments.js';
import { fundedMerchant, mobileMoney, postPayout } from '../support/payouts.js';
import { startService, type TestService } from '../support/system.js';

t.test('a key is looked up once, then answered from memory', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  const key = await svc.apiKey(m.id, ['*'], 'sandbox');
  const lookups: string[] = [];
  const count = (q: { sql: string }) => {
    if (q.sql.includes('"read"."api_keys"')) lookups.push(q.sql);
  };
  svc.system.knex.on('query', count);
  t.teardown(() => void svc.system.knex.off('query', count));
  for (let i = 0; i < 5; i++) assertOk(t, await svc.request('GET', '/api/v1/balance', { key: key.secret }));
  t.equal(lookups.length, 1, 'one read of read.api_keys for five requests');
  // An unknown key is never remembered: each attempt is read again. Its last character differs
  // from the real one's (a fixed "x" was the real key one time in 62, and the test failed).
  const unknown = `${key.secret.slice(0, -1)}${key.secret.endsWith('x') ? 'y' : 'x'}`;
  for (let i = 0; i < 3; i++) assertError(t, await svc.request('GET', '/api/v1/balance', { key: unknown }), 'IKW-AUT-002');
  t.equal(lookups.length, 4, 'unknown keys are read every time');
});

t.test('a key revoked by this process is refused at the next request', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  const key = await svc.apiKey(m.id, ['*'], 'sandbox');
  assertOk(t, await svc.request('GET', '/api/v1/balance', { key: key.secret }));
  await revokeApiKey(svc.system.store, svc.clock, m.id, key.id, 'test');
  assertError(t, await svc.request('GET', '/api/v1/balance', { key: key.secret }), 'IKW-AUT-002');
});

t.test('a key revoked by another process is refused once the log reached this one', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  const key = await svc.apiKey(m.id, ['*'], 'sandbox');
  const other = await svc.apiKey(m.id, ['*'], 'sandbox');
  assertOk(t, await svc.request('GET', '/api/v1/balance', { key: key.secret }));
  assertOk(t, await svc.request('GET', '/api/v1/balance', { key: other.secret }));
  // A second store on the same database stands for another process: its commits reach this
  // process only through the event log.
  const otherProcess = new PostgresEventStore(svc.system.knex, { inline: inlineProjections(ALL_PROJECTIONS) });
  t.teardown(() => otherProcess.close());
  await revokeApiKey(otherProcess, svc.clock, m.id, key.id, 'test');
  await svc.system.apiKeys.caughtUp();
  assertError(t, await svc.request('GET', '/api/v1/balance', { key: key.secret }), 'IKW-AUT-002');
  assertOk(t, await svc.request('GET', '/api/v1/balance', { key: other.secret })); // the other key still works
});

/** Resolves when `svc`'s process hears that the key was revoked or rolled (its cache, listening first, has forgotten it then). */
function heardOfEnd(svc: TestService, keyId: string): Promise<void> {
  return new Promise((resolve) => void svc.system.db.notifications.listen(API_KEY_ENDS_CHANNEL, (id) => id === keyId && resolve()));
}

t.test('a key revoked through one API process is refused by another as soon as it hears of it', async (t) => {
  const here = await startService(t);
  const there = await startService(t, { databaseUrl: here.databaseUrl });
  const m = await here.merchant();
  const key = await here.apiKey(m.id, ['*'], 'sandbox');
  const other = await here.apiKey(m.id, ['*'], 'sandbox');
  assertOk(t, await there.request('GET', '/api/v1/balance', { key: key.secret }));
  assertOk(t, await there.request('GET', '/api/v1/balance', { key: other.secret }));
  const heard = heardOfEnd(there, key.id);
  await revokeApiKey(here.system.store, here.clock, m.id, key.id, 'test');
  await heard;
  assertError(t, await there.request('GET', '/api/v1/balance', { key: key.secret }), 'IKW-AUT-002');
  assertOk(t, await there.request('GET', '/api/v1/balance', { key: other.secret })); // the other key still works
});

t.test('a revocation the log shows is applied to a key row the read model has not caught up with', async (t) => {
  const here = await startService(t);
  const there = await startService(t, { databaseUrl: here.databaseUrl });
  const m = await here.merchant();
  const key = await here.apiKey(m.id, ['*'], 'sandbox');
  assertOk(t, await there.request('GET', '/api/v1/balance', { key: key.secret }));
  await revokeApiKey(here.system.store, here.clock, m.id, key.id, 'test');
  // The row as a projector that has not applied the revocation yet shows it (EventStoreDB's,
  // behind): the other process has the revocation from the log it follows, not from the row.
  await here.system.knex('read.api_keys').where({ id: key.id }).update({ revoked_at: null });
  await there.system.apiKeys.caughtUp();
  assertError(t, await there.request('GET', '/api/v1/balance', { key: key.secret }), 'IKW-AUT-002');
  there.clock.advance(API_KEY_REMEMBER_MS);
  assertError(t, await there.request('GET', '/api/v1/balance', { key: key.secret }), 'IKW-AUT-002'); // read again, still refused
});

t.test('a key is trusted a second at most: a change no notification announced is seen after it', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  const key = await svc.apiKey(m.id, ['*'], 'sandbox');
  assertOk(t, await svc.request('GET', '/api/v1/balance', { key: key.secret }));
  // Revoked in the read model with no event and no notification: what a lost notification leaves.
  await svc.system.knex('read.api_keys').where({ id: key.id }).update({ revoked_at: svc.clock.now() });
  assertOk(t, await svc.request('GET', '/api/v1/balance', { key: key.secret })); // remembered within the second
  svc.clock.advance(API_KEY_REMEMBER_MS);
  assertError(t, await svc.request('GET', '/api/v1/balance', { key: key.secret }), 'IKW-AUT-002');
});

t.test('the payment gates are read once; a capability changed here or by another process refuses the next payout', async (t) => {
  const svc = await startService(t);
  const { merchant, key } = await fundedMerchant(svc, 1_000_000);
  const owner = { merchantId: merchant.id, environment: 'sandbox' as const };
  const gateReads: string[] = [];
  const count = (q: { sql: string }) => {
    if (/"read"\."(payment_capabilities|country_activations)"/.test(q.sql)) gateReads.push(q.sql);
  };
  svc.system.knex.on('query', count);
  t.teardown(() => void svc.system.knex.off('query', count));
  const pay = () => postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() });
  for (let i = 0; i < 3; i++) assertOk(t, await pay());
  t.equal(gateReads.length, 2, 'the capability and the activation read once for three payouts');

  const here = await svc.system.paymentCapabilities.create(owner, { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', is_enabled: false }, { actor: 'test' });
  assertError(t, await pay(), 'IKW-CAP-001', 'destination');
  await svc.system.paymentCapabilities.delete(owner, here.id, { actor: 'test' });
  assertOk(t, await pay());

  const otherProcess = new PostgresEventStore(svc.system.knex, { inline: inlineProjections(ALL_PROJECTIONS) });
  t.teardown(() => otherProcess.close());
  await new PaymentCapabilities({ store: otherProcess, clock: svc.clock }).create(owner, { country: 'SN', currency: 'xof', payment_method_type: 'mobile_money', is_enabled: false }, { actor: 'test' });
  await svc.system.apiKeys.caughtUp();
  await svc.system.gates.caughtUp();
  assertError(t, await pay(), 'IKW-CAP-001', 'destination');
});

t.test('the default return URL is read once per merchant; a settings change applies to the next confirm', async (t) => {
  const svc = await startService(t);
  const { key } = await fundedMerchant(svc, 1_000);
  const settingsReads: string[] = [];
  const count = (q: { sql: string }) => {
    if (/"read"\."payout_settings"/.test(q.sql)) settingsReads.push(q.sql);
  };
  svc.system.knex.on('query', count);
  t.teardown(() => void svc.system.knex.off('query', count));
  const confirmed = async () => {
    const intent = await createIntent(svc, key, { amount: 5_000, currency: 'xof', transaction_country: 'SN' });
    const answer = await confirm(svc, key, intent.id, { payment_method: paymentWallet(snNumber('67')) });
    assertOk(t, answer);
    return answer.body.return_url as string;
  };
  for (let i = 0; i < 3; i++) t.match(await confirmed(), /\/operations\/status\/op_/, 'the hosted status page without a default');
  t.equal(settingsReads.length, 1, 'the settings read once for three confirms');

  assertOk(t, await svc.request('PATCH', '/api/v1/merchant/settings/payouts', { key, body: { default_return_url: 'https://shop.example/back' } }));
  t.equal(await confirmed(), 'https://shop.example/back', 'the new default at the next confirm');
});

t.test('payouts of an API key read the payout settings once per merchant; refusing inline destinations applies to the next payout', async (t) => {
  const svc = await startService(t);
  const { key } = await fundedMerchant(svc, 100_000);
  const settingsReads: string[] = [];
  const count = (q: { sql: string }) => {
    if (/"read"\."payout_settings"|merchant_settings-/.test(`${q.sql} ${JSON.stringify((q as { bindings?: unknown }).bindings ?? [])}`)) settingsReads.push(q.sql);
  };
  svc.system.knex.on('query', count);
  t.teardown(() => void svc.system.knex.off('query', count));
  for (let i = 0; i < 3; i++) assertOk(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() }));
  t.equal(settingsReads.length, 1, 'the settings read once for three payouts');

  assertOk(t, await svc.request('PATCH', '/api/v1/merchant/settings/payouts', { key, body: { inline_destinations_for_api_keys: false } }));
  assertError(t, await postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() }), 'IKW-PAY-008', 'destination');
});
