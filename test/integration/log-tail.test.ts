/**
 * The Postgres store keeps the last stretch of the log it read: consumers tailing the log at the
 * same place share one read (docs/performance.md), and what they get is what the database says.
 */
import type { EventEmitter } from 'node:events';
import fc from 'fast-check';
import t from '#tap';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { postgresStore } from '../support/db.js';

const positions = (events: RecordedEvent[]) => events.map((e) => e.position);

t.test('consumers at the same place share a read; any sequence of reads answers what the database does', async (t) => {
  const { knex, store } = await postgresStore(t);
  for (let i = 0; i < 60; i++) await store.append(`tail-${i % 7}`, [{ type: 'tail.event', data: { i } }], { expectedVersion: i < 7 ? 'no_stream' : Math.floor(i / 7) - 1 });
  // A second store on the same database reads straight from it: the reference.
  const reference = new PostgresEventStore(knex);
  t.teardown(() => reference.close());
  const all = await reference.readAll(null, 1000);
  t.equal(all.length, 60);

  let reads = 0;
  const count = (q: { sql: string }) => {
    if (/FROM events\s+WHERE transaction_id < pg_snapshot_xmin/.test(q.sql)) reads++;
  };
  knex.on('query', count);
  const first = await store.readAll(null, 20);
  const second = await store.readAll(null, 20);
  const third = await store.readAll(first[9]!.position, 20);
  knex.off('query', count);
  t.same(positions(second), positions(first), 'the second consumer gets the same events');
  t.same(positions(third), positions(all.slice(10, 30)), 'a consumer inside the stretch gets the rest of it, then what follows from the database');
  t.equal(reads, 2, 'the second consumer read nothing from the database');

  reads = 0;
  knex.on('query', count);
  const onward = await store.readAll(first[14]!.position, 20);
  knex.off('query', count);
  t.same(positions(onward), positions(all.slice(15, 35)), 'the stretch, then the database for what follows it');
  t.equal(reads, 1);

  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: -1, max: 59 }), fc.integer({ min: 1, max: 25 })), { minLength: 1, maxLength: 15 }), async (asks) => {
      for (const [at, limit] of asks) {
        const after = at < 0 ? null : all[at]!.position;
        t.same(positions(await store.readAll(after, limit)), positions(all.slice(at + 1, at + 1 + limit)), `after ${at}, ${limit}`);
      }
    }),
    { numRuns: 30 },
  );

  // Events committed later come after the stretch, never inside it.
  await store.append('tail-late', [{ type: 'tail.event', data: { late: true } }], { expectedVersion: 'no_stream' });
  const rest = await store.readAll(all[59]!.position, 10);
  t.same(
    rest.map((e) => e.streamId),
    ['tail-late'],
  );
});

t.test('consumers woken together at the end of the stretch share one read of the database; one woken later reads again', async (t) => {
  const { knex, store } = await postgresStore(t);
  for (let i = 0; i < 5; i++) await store.append(`woken-${i}`, [{ type: 'tail.event', data: { i } }], { expectedVersion: 'no_stream' });
  const head = await store.readAll(null, 100);
  t.equal(head.length, 5);
  const end = head[4]!.position;

  let reads = 0;
  const count = (q: { sql: string }) => {
    if (/FROM events\s+WHERE transaction_id < pg_snapshot_xmin/.test(q.sql)) reads++;
  };
  knex.on('query', count);
  t.teardown(() => knex.off('query', count));

  await store.append('woken-next', [{ type: 'tail.event', data: { next: true } }], { expectedVersion: 'no_stream' });
  // Twenty consumers at the stretch's end, woken by that commit, with page sizes up to the first's.
  const pages = await Promise.all(Array.from({ length: 20 }, (_, i) => store.readAll(end, 100 - i)));
  t.equal(reads, 1, 'one read of the database for all of them');
  for (const page of pages)
    t.same(
      page.map((e) => e.streamId),
      ['woken-next'],
    );

  // A read in flight when a wake-up lands (a commit of this process, another's NOTIFY) is not
  // shared with the consumers it wakes: it may have been answered before that commit. No public
  // call orders a wake-up between a read's start and its answer, so the test emits one itself.
  reads = 0;
  const at = pages[0]![0]!.position;
  const before = store.readAll(at, 100);
  (store as unknown as { committed: EventEmitter }).committed.emit('wake');
  const after = store.readAll(at, 100);
  await Promise.all([before, after]);
  t.equal(reads, 2, 'the consumer woken while a read was in flight read for itself');
  await store.append('woken-late', [{ type: 'tail.event', data: { late: true } }], { expectedVersion: 'no_stream' });
  t.same(
    (await store.readAll(at, 100)).map((e) => e.streamId),
    ['woken-late'],
    'and a commit since is read',
  );

  // A consumer asking for more than the read in flight will bring reads for itself.
  reads = 0;
  const end2 = (await store.readAll(at, 1))[0]!.position;
  await Promise.all([store.readAll(end2, 1), store.readAll(end2, 50)]);
  t.equal(reads, 2, 'a smaller read in flight is not shared with a larger ask');
});
