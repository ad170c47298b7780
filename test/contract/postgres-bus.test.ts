import t from '#tap';
import { applyBatch, CheckpointedConsumer, CheckpointMoved, readCheckpoint } from '#packages/bus/consumer.js';
import { postgresStore } from '../support/db.js';
import { busContract } from './bus-contract.js';

/** The embedded bus (BUS=postgres): checkpointed consumers tailing the Postgres event log. */
busContract(t, async (t) => {
  const { knex, store } = await postgresStore(t, { poolSize: 30 });
  return {
    store,
    consumer: (spec) => new CheckpointedConsumer(knex, store, spec),
    restartFeed: async () => undefined, // consumers read the log itself: nothing between them
  };
});

t.test('a consumer that names the types it acts on moves past a batch of other types in one statement, never past a moved checkpoint', async (t) => {
  const { knex, store } = await postgresStore(t);
  await knex('bus_checkpoints').insert({ name: 'picky', position: null, updated_at: knex.fn.now() });
  for (let i = 0; i < 3; i++) await store.append(`s-${i}`, [{ type: 'other.thing', data: { i } }], { expectedVersion: 'no_stream' });
  const events = await store.readAll(null, 10);
  const handled: string[] = [];
  const spec = { name: 'picky', checkpointTable: 'bus_checkpoints', handles: ['wanted.thing'], handle: async (_trx: unknown, batch: readonly { type: string }[]) => void handled.push(...batch.map((e) => e.type)) };
  const statements: string[] = [];
  // The store's own NOTIFY, sent 5 ms after each append, may land in the window: not the consumer's.
  const count = (q: { sql: string }) => void (/pg_notify/.test(q.sql) || statements.push(q.sql));
  knex.on('query', count);
  await applyBatch(knex, spec, null, events);
  knex.off('query', count);
  t.same(handled, [], 'handle is not called for types it does not act on');
  t.equal(statements.length, 1, `one statement: ${statements.join(' | ')}`);
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'picky'), events[2]!.position, 'the checkpoint moved past the batch');

  await store.append('s-wanted', [{ type: 'wanted.thing', data: {} }], { expectedVersion: 'no_stream' });
  const next = await store.readAll(events[2]!.position, 10);
  const moved = (batch: typeof events) =>
    applyBatch(knex, spec, events[0]!.position, batch).then(
      () => false,
      (err: unknown) => err instanceof CheckpointMoved,
    );
  t.ok(await moved(next), 'a consumer that is not where the checkpoint is applies nothing');
  t.ok(await moved(events.slice(1)), 'even for a batch it would skip');
  await applyBatch(knex, spec, events[2]!.position, next);
  t.same(handled, ['wanted.thing'], 'a batch with a type it acts on is handled');
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'picky'), next[0]!.position);
});

t.test('a consumer that acts on some events of its types only (acts) moves past a batch of none of them in one statement, and handles a batch with one', async (t) => {
  const { knex, store } = await postgresStore(t);
  await knex('bus_checkpoints').insert({ name: 'narrow', position: null, updated_at: knex.fn.now() });
  for (let i = 0; i < 3; i++) await store.append(`n-${i}`, [{ type: 'wanted.thing', data: { i } }], { expectedVersion: 'no_stream' });
  const events = await store.readAll(null, 10);
  const handled: number[] = [];
  const spec = {
    name: 'narrow',
    checkpointTable: 'bus_checkpoints',
    handles: ['wanted.thing'],
    acts: (e: { data: unknown }) => (e.data as { i: number }).i === 2,
    handle: async (_trx: unknown, batch: readonly { data: unknown }[]) => void handled.push(...batch.map((e) => (e.data as { i: number }).i)),
  };
  const statements: string[] = [];
  const count = (q: { sql: string }) => void (/pg_notify/.test(q.sql) || statements.push(q.sql));
  knex.on('query', count);
  await applyBatch(knex, spec, null, events.slice(0, 2));
  knex.off('query', count);
  t.same(handled, [], 'handle is not called for events it does not act on');
  t.equal(statements.length, 1, `one statement: ${statements.join(' | ')}`);
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'narrow'), events[1]!.position);

  statements.length = 0;
  knex.on('query', count);
  await applyBatch(knex, spec, events[1]!.position, events.slice(2));
  knex.off('query', count);
  t.same(handled, [2], 'a batch with an event it acts on is handled');
  t.same(
    statements.map((s) => s.split(' ')[0]!.toUpperCase()),
    ['BEGIN;', 'UPDATE', 'COMMIT;'],
    `the checkpoint claimed and moved by one statement in the batch's transaction: ${statements.join(' | ')}`,
  );
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'narrow'), events[2]!.position);
});

t.test('a first batch with no checkpoint row inserts it, in either path', async (t) => {
  const { knex, store } = await postgresStore(t);
  await store.append('f-1', [{ type: 'other.thing', data: {} }], { expectedVersion: 'no_stream' });
  await store.append('f-2', [{ type: 'wanted.thing', data: {} }], { expectedVersion: 'no_stream' });
  const events = await store.readAll(null, 10);
  const spec = (name: string) => ({ name, checkpointTable: 'bus_checkpoints', handles: ['wanted.thing'], handle: async () => undefined });
  await applyBatch(knex, spec('first-skip'), null, events.slice(0, 1));
  await applyBatch(knex, spec('first-handled'), null, events);
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'first-skip'), events[0]!.position);
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'first-handled'), events[1]!.position);
  const moved = await applyBatch(knex, spec('elsewhere'), events[0]!.position, events.slice(1)).then(
    () => false,
    (err: unknown) => err instanceof CheckpointMoved,
  );
  t.ok(moved, 'a consumer that expects a checkpoint where there is no row applies nothing');
});

t.test('a consumer leaves its stored checkpoint behind batches it acts on none of until its next batch, or until it is caught up', async (t) => {
  const { knex, store } = await postgresStore(t);
  const name = 'deferring';
  const handled: string[] = [];
  let wanted: () => void = () => undefined;
  const spec = {
    name,
    checkpointTable: 'bus_checkpoints',
    handles: ['wanted.thing'],
    handle: async (_trx: unknown, batch: readonly { type: string; streamId: string }[]) => {
      handled.push(...batch.filter((e) => e.type === 'wanted.thing').map((e) => e.streamId));
      wanted();
    },
  };
  // The deferral outlasts the test: only the next batch, caughtUp() or stop() move the checkpoint.
  await knex('bus_checkpoints').insert({ name, position: null, updated_at: knex.fn.now() });
  const consumer = new CheckpointedConsumer(knex, store, spec, undefined, 3_600_000);
  await consumer.start();
  t.teardown(() => consumer.stop());
  const moves: string[] = [];
  const count = (q: { sql: string; bindings?: unknown[] }) => void (/bus_checkpoints/.test(q.sql) && JSON.stringify(q.bindings ?? []).includes(name) && moves.push(q.sql));
  knex.on('query', count);

  const handledOnce = new Promise<void>((resolve) => (wanted = resolve));
  for (let i = 0; i < 5; i++) await store.append(`other-${i}`, [{ type: 'other.thing', data: {} }], { expectedVersion: 'no_stream' });
  await store.append('wanted-1', [{ type: 'wanted.thing', data: {} }], { expectedVersion: 'no_stream' });
  await handledOnce;
  await consumer.caughtUp(); // its batch committed; nothing left behind to store
  knex.off('query', count);
  const afterWanted = await readCheckpoint(knex, 'bus_checkpoints', name);
  const log = await store.readAll(null, 100);
  t.same(handled, ['wanted-1']);
  t.equal(afterWanted, log[log.length - 1]!.position, 'the batch it acted on moved the checkpoint past the skipped ones as well');
  t.equal(moves.length, 1, `the skipped batches moved nothing of their own: one statement on the checkpoint (${moves.join(' | ')})`);

  for (let i = 5; i < 8; i++) await store.append(`other-${i}`, [{ type: 'other.thing', data: {} }], { expectedVersion: 'no_stream' });
  await consumer.caughtUp();
  const head = await store.readAll(null, 100);
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', name), head[head.length - 1]!.position, 'caught up, the stored checkpoint is at the head');
  t.same(handled, ['wanted-1'], 'nothing handled twice');
});

// What this can tell: the checkpoint moves by the consumer's own doing (no caughtUp(), no stop()).
// It cannot tell "in the batch" from "a timer later" without timing, which the tests do not do.
t.test('a consumer whose checkpoint something waits on (deferMs 0, the projector) moves it past a batch it acts on none of by itself', async (t) => {
  const { knex, store } = await postgresStore(t);
  const name = 'not-deferring';
  await knex('bus_checkpoints').insert({ name, position: null, updated_at: knex.fn.now() });
  const consumer = new CheckpointedConsumer(knex, store, { name, checkpointTable: 'bus_checkpoints', handles: ['wanted.thing'], handle: async () => undefined }, undefined, 0);
  await consumer.start();
  t.teardown(() => consumer.stop());
  // Resolves when the consumer's own statement has moved the checkpoint: neither caughtUp() nor stop() is called before.
  const moved = new Promise<void>((resolve) => {
    const onAnswer = (_response: unknown, q: { sql: string; bindings?: unknown[] }) => {
      if (/^update "bus_checkpoints"/i.test(q.sql) && JSON.stringify(q.bindings ?? []).includes(name)) {
        knex.off('query-response', onAnswer);
        resolve();
      }
    };
    knex.on('query-response', onAnswer);
  });
  await store.append('other-1', [{ type: 'other.thing', data: {} }], { expectedVersion: 'no_stream' });
  await moved;
  const log = await store.readAll(null, 10);
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', name), log[log.length - 1]!.position);
});
