/**
 * The API key cache (docs/performance.md): a presented key is read from read.api_keys once, and
 * its revocation takes effect at the next request, whichever process revoked it.
 */
import t from 'tap';
import { revokeApiKey } from '../../packages/domain/merchant/commands.js';
import { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
import { ALL_PROJECTIONS } from '../../projections/registry.js';
import { inlineProjections } from '../../projections/runner.js';
import { assertError, assertOk } from '../support/assertions.js';
import { startService } from '../support/system.js';

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
  // An unknown key is never remembered: each attempt is read again.
  for (let i = 0; i < 3; i++) assertError(t, await svc.request('GET', '/api/v1/balance', { key: `${key.secret.slice(0, -1)}x` }), 'IKW-AUT-002');
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
