import t from '#tap';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { migratedDatabase } from '../support/db.js';

t.test('a reader never skips an event that commits late with a lower global position', async (t) => {
  const { knex } = await migratedDatabase(t, { poolSize: 10 });
  const store = new PostgresEventStore(knex);

  // A slow writer: takes a global position first, commits last.
  const slow = await knex.transaction();
  await slow.raw(`INSERT INTO streams (stream_id, version) VALUES ('slow', 0)`);
  // Its hash is not what this test is about (events.hash is required; audit verify would name it).
  await slow.raw(`INSERT INTO events (stream_id, version, event_id, type, data, hash) VALUES ('slow', 0, gen_random_uuid(), 'late', '{}', '')`);

  await store.append('fast', [{ type: 'early', data: {} }], { expectedVersion: 'no_stream' });
  const whileSlowRuns = await store.readAll(null, 100);
  t.same(
    whileSlowRuns.map((e) => e.type),
    [],
    'the fast commit is held back while an older transaction may still commit below it',
  );

  await slow.commit();
  const after = await store.readAll(null, 100);
  t.same(
    after.map((e) => e.type),
    ['late', 'early'],
    'commit order: the slow writer first, then the fast one',
  );
  const raw = await knex('events').select('type', 'global_position').orderBy('global_position');
  t.same(
    raw.map((r: { type: string }) => r.type),
    ['late', 'early'],
  );
});
