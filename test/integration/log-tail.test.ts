/**
 * The Postgres store keeps the last stretch of the log it read: consumers tailing the log at the
 * same place share one read (docs/performance.md), and what they get is what the database says.
 */
import fc from 'fast-check';
import t from 'tap';
import type { RecordedEvent } from '../../packages/eventstore/port.js';
import { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
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
  t.same(rest.map((e) => e.streamId), ['tail-late']);
});
