import t from '#tap';
import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { createApiKey, revokeApiKey } from '#packages/families/merchants/merchant/commands.js';
import { merchantDecider } from '#packages/families/merchants/merchant/decider.js';
import { apiKeysProjection } from '#packages/families/merchants/read/api-keys.js';
import { merchantsProjection } from '#packages/families/merchants/read/merchants.js';
import { ALL_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { inlineProjections, ProjectionRunner, readProjectionCheckpoint, resetForRebuild } from '#packages/read-models/runner.js';
import { spec } from '../support/decider-spec.js';
import { projectionSpec, readModelRows } from '../support/projection-spec.js';
import { startService } from '../support/system.js';
import { postgresStore } from '../support/db.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { SubscribeOptions } from '#packages/eventstore/port.js';

const snapshot = (knex: Knex) =>
  readModelRows(
    knex,
    ALL_PROJECTIONS.flatMap((p) => p.tables),
  );

t.test('read.merchants and read.api_keys from merchant events; a batch handled again changes nothing', async (t) => {
  const created = new Date('2026-01-02T03:04:05Z');
  const revoked = new Date('2026-01-03T00:00:00Z');
  const key = (keyId: string, environment: 'sandbox' | 'live', scopes: string[]) => ({ keyId, environment, keyHash: `hash-${keyId}`, last4: keyId.slice(-4), scopes });
  const merchantStreams = spec(merchantDecider);
  const events = [
    ...merchantStreams.history(
      { type: 'create_merchant', merchantId: 'acct_1', name: 'Acme', email: 'ops@acme.example', keys: [key('key_sand', 'sandbox', ['*']), key('key_live', 'live', ['payouts.read'])], at: created },
      { type: 'revoke_api_key', merchantId: 'acct_1', keyId: 'key_live', at: revoked },
    ),
    ...merchantStreams.history({ type: 'create_merchant', merchantId: 'acct_2', name: 'Other', email: null, keys: [], at: created }),
  ];
  const read = await projectionSpec(t, merchantsProjection, apiKeysProjection);
  await read.given(events);
  const merchants = await read.thenRows(t, 'read.merchants', [
    { id: 'acct_1', name: 'Acme', email: 'ops@acme.example', created_at: created },
    { id: 'acct_2', name: 'Other', email: null, created_at: created },
  ]);
  const keys = await read.thenRows(t, 'read.api_keys', [
    { id: 'key_live', merchant_id: 'acct_1', environment: 'live', key_hash: 'hash-key_live', last4: 'live', scopes: ['payouts.read'], created_at: created, revoked_at: revoked },
    { id: 'key_sand', merchant_id: 'acct_1', environment: 'sandbox', key_hash: 'hash-key_sand', last4: 'sand', scopes: ['*'], created_at: created, revoked_at: null },
  ]);
  // The asynchronous runner delivers at least once: a batch may come again after a crash.
  await read.given(events);
  t.same(await read.rows('read.merchants'), merchants, 'merchants unchanged');
  t.same(await read.rows('read.api_keys'), keys, 'keys unchanged, the revocation kept');
});

/** Some history: merchants, extra keys, revocations. */
async function makeHistory(svc: Awaited<ReturnType<typeof startService>>): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const m = await svc.merchant(`Merchant ${i}`);
    const extra = await svc.apiKey(m.id, ['payouts.read']);
    if (i % 2 === 0) await revokeApiKey(svc.system.store, svc.clock, m.id, extra.id, 'test');
    svc.clock.advance(1000);
  }
}

t.test('read your writes: a key works the moment its merchant is created', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  const res = await svc.request('GET', '/readyz', { key: m.api_keys.sandbox });
  t.equal(res.status, 200);
  const row = await svc.system.knex('read.merchants').where({ id: m.id }).first();
  t.equal(row.name, 'Test merchant');
});

t.test('rebuild from position zero produces the same rows as the live run', async (t) => {
  const svc = await startService(t);
  await makeHistory(svc);
  const live = await snapshot(svc.system.knex);
  t.equal((live['read.api_keys'] ?? []).length, 15);
  // Damage the read model, then rebuild it.
  await svc.system.knex('read.api_keys').delete();
  await svc.system.knex('read.merchants').update({ name: 'wrong' });
  const applied = await svc.system.rebuildProjections();
  t.equal(applied, 5 * 3 + 5 + 3, 'every event replayed once');
  t.same(await snapshot(svc.system.knex), live);
  t.ok(await readProjectionCheckpoint(svc.system.knex, 'api_keys'), 'checkpoint recorded');
});

t.test('rebuild of one read model leaves the others alone; unknown names are refused', async (t) => {
  const svc = await startService(t);
  await makeHistory(svc);
  const live = await snapshot(svc.system.knex);
  await svc.system.knex('read.merchants').update({ name: 'kept' });
  await svc.system.rebuildProjections(['api_keys']);
  const after = await snapshot(svc.system.knex);
  t.same(after['read.api_keys'], live['read.api_keys']);
  t.ok((after['read.merchants'] as { name: string }[]).every((r) => r.name === 'kept'));
  await t.rejects(svc.system.rebuildProjections(['nope']), /Unknown projection/);
});

t.test('a rebuild while merchants are being created loses and duplicates nothing', async (t) => {
  const svc = await startService(t);
  await makeHistory(svc);
  const writers = Promise.all(Array.from({ length: 20 }, (_, i) => svc.merchant(`Concurrent ${i}`)));
  const rebuilds = Promise.all([svc.system.rebuildProjections(), svc.system.rebuildProjections()]);
  await Promise.all([writers, rebuilds]);
  const live = await snapshot(svc.system.knex);
  t.equal((live['read.merchants'] ?? []).length, 25);
  await svc.system.rebuildProjections();
  t.same(await snapshot(svc.system.knex), live);
});

t.test('the asynchronous runner (stores without inline projections) reaches the same rows', async (t) => {
  const svc = await startService(t);
  await makeHistory(svc);
  const live = await snapshot(svc.system.knex);
  await resetForRebuild(svc.system.knex, ALL_PROJECTIONS);
  t.same((await snapshot(svc.system.knex))['read.merchants'], [], 'reset empties the tables');
  const store = new PostgresEventStore(svc.system.knex, { pollIntervalMs: 20 });
  const runner = new ProjectionRunner(svc.system.knex, store, ALL_PROJECTIONS);
  await runner.start();
  await runner.caughtUp();
  t.same(await snapshot(svc.system.knex), live);
  // A reset while the runner is live: it notices the moved checkpoint and replays from zero.
  await resetForRebuild(svc.system.knex, ALL_PROJECTIONS);
  await store.append('merchant-poke', [{ type: 'unrelated.event', data: {} }], { expectedVersion: 'no_stream' });
  for (let i = 0; i < 100 && JSON.stringify(await snapshot(svc.system.knex)) !== JSON.stringify(live); i++) await runner.caughtUp();
  t.same(await snapshot(svc.system.knex), live);
  await runner.stop();
  await store.close();
});

t.test('a projection that follows the log leaves its stored checkpoint behind batches it acts on none of only where nothing waits on it', async (t) => {
  const { knex, store } = await postgresStore(t);
  /** A read model that writes nothing: only its checkpoint is looked at. */
  const projection = (name: string): Projection => ({ name, tables: [], migrations: [], handles: ['wanted.thing'], apply: async () => undefined });
  /** The store as a runner sees it, telling when a batch holding `streamId` has been handled. */
  const observed = (streamId: string) => {
    let handled: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (handled = resolve));
    const proxy = new Proxy(store, {
      get(target, prop) {
        if (prop === 'subscribe') {
          return (options: SubscribeOptions) =>
            target.subscribe({
              ...options,
              handle: async (events) => {
                await options.handle(events);
                if (events.some((e) => e.streamId === streamId)) handled();
              },
            });
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { store: proxy, done };
  };
  await store.append('wanted-1', [{ type: 'wanted.thing', data: {} }], { expectedVersion: 'no_stream' });
  const atWanted = (await store.headPosition())!;
  for (let i = 0; i < 3; i++) await store.append(`other-${i}`, [{ type: 'other.thing', data: {} }], { expectedVersion: 'no_stream' });
  const head = (await store.headPosition())!;
  for (const name of ['deferring', 'eager']) await knex('read.projection_checkpoints').insert({ name, position: atWanted, updated_at: knex.fn.now() });
  // Postgres (inline read-your-writes: nothing waits on the checkpoint) defers; EventStoreDB's default, 0, moves at once.
  const [d, e] = [observed('other-2'), observed('other-2')];
  const deferring = new ProjectionRunner(knex, d.store, [projection('deferring')], undefined, 3_600_000);
  const eager = new ProjectionRunner(knex, e.store, [projection('eager')]);
  await deferring.start();
  await eager.start();
  t.teardown(async () => {
    await deferring.stop();
    await eager.stop();
  });
  await Promise.all([d.done, e.done]);
  t.equal(await readProjectionCheckpoint(knex, 'eager'), head, 'with a deferral of 0, a batch it acts on none of moves the stored checkpoint at once');
  t.equal(await readProjectionCheckpoint(knex, 'deferring'), atWanted, 'deferring: the batch it acts on none of left the stored checkpoint behind (a crash reads it again, and skips it again)');
  await deferring.caughtUp();
  t.equal(await readProjectionCheckpoint(knex, 'deferring'), head, 'caught up, the stored checkpoint is at the head');
});

t.test('concurrent commands on one aggregate from two processes: losers get 409 IKW-RES-003, nothing is half-written', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  // A second store instance stands for another process: commands of one process queue per stream,
  // so only another process can race them, and the expected version decides.
  const otherProcess = new PostgresEventStore(svc.system.knex, { inline: inlineProjections(ALL_PROJECTIONS) });
  const stores = [svc.system.store, otherProcess];
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => createApiKey(stores[i % 2]!, svc.clock, m.id, 'sandbox', ['*'], 'test')));
  const ok = results.filter((r) => r.status === 'fulfilled').length;
  const conflicts = results.filter((r) => r.status === 'rejected' && r.reason instanceof ApiError && r.reason.code === 'IKW-RES-003');
  t.ok(ok >= 1, 'at least one wins');
  t.ok(conflicts.length >= 1, 'the two processes raced');
  t.equal(ok + conflicts.length, 20, 'every loser is a retryable 409');
  const keys = await svc.system.knex('read.api_keys').where({ merchant_id: m.id });
  t.equal(keys.length, 2 + ok, 'exactly the winners are visible');
  t.equal((await svc.system.store.readStream(`merchant-${m.id}`)).length, 3 + ok);
});
