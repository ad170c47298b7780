/**
 * The scheduler's job writer: jobs enqueued at the same time share one INSERT, each caller
 * resolves once its row is committed, a key enqueued twice keeps its first job, and a row that
 * cannot be written fails only its own caller.
 */
import t from '#tap';
import { JobWriter } from '#packages/scheduler/job-writer.js';
import { scheduleMany, type JobSpec } from '#packages/scheduler/scheduler.js';
import { migratedDatabase } from '../support/db.js';

const job = (key: string, n = 0): JobSpec => ({ kind: 'test.job', key, runAt: new Date('2026-01-01T00:00:00Z'), payload: { n } });

function countInserts(knex: import('knex').Knex): () => number {
  let inserts = 0;
  knex.on('query', (q: { sql: string }) => {
    if (/^insert into "scheduled_jobs"/.test(q.sql)) inserts++;
  });
  return () => inserts;
}

t.test('60 jobs enqueued at once are all stored, in fewer statements than jobs', async (t) => {
  const { knex } = await migratedDatabase(t);
  const inserts = countInserts(knex);
  const writer = new JobWriter<JobSpec>((jobs) => scheduleMany(knex, jobs));
  const keys = Array.from({ length: 60 }, (_, i) => `k-${i}`);
  await Promise.all(keys.map((k, i) => writer.write(job(k, i))));
  const rows = await knex('scheduled_jobs').select('key', 'payload').orderBy('id');
  t.same(new Set(rows.map((r: { key: string }) => r.key)), new Set(keys), 'every job stored once');
  t.ok(inserts() < 60, `${inserts()} INSERT statements for 60 jobs`);
});

t.test('a write resolves only once its row is committed', async (t) => {
  const { knex } = await migratedDatabase(t);
  const writer = new JobWriter<JobSpec>((jobs) => scheduleMany(knex, jobs));
  const seen = await Promise.all(
    ['a', 'b', 'c'].map(async (k) => {
      await writer.write(job(k));
      return (await knex('scheduled_jobs').where({ key: k }).first()) !== undefined;
    }),
  );
  t.same(seen, [true, true, true]);
});

t.test('the same key twice, in one statement or after it, keeps the first job', async (t) => {
  const { knex } = await migratedDatabase(t);
  const writer = new JobWriter<JobSpec>((jobs) => scheduleMany(knex, jobs), { inFlight: 1 });
  await Promise.all([writer.write(job('blocker')), writer.write(job('twice', 1)), writer.write(job('twice', 2))]);
  await writer.write(job('twice', 3));
  const rows = await knex('scheduled_jobs').where({ key: 'twice' }).select('payload');
  t.same(
    rows.map((r: { payload: { n: number } }) => r.payload.n),
    [1],
  );
});

t.test('a job that cannot be stored fails its own caller only', async (t) => {
  const { knex } = await migratedDatabase(t);
  const inserts = countInserts(knex);
  const writer = new JobWriter<JobSpec>((jobs) => scheduleMany(knex, jobs), { inFlight: 1 });
  const bad: JobSpec = { ...job('bad'), kind: null as unknown as string };
  // Enqueued in one step, the four share one statement; it fails, and each row is written alone.
  const results = await Promise.allSettled([writer.write(job('first')), writer.write(job('good-1')), writer.write(bad), writer.write(job('good-2'))]);
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  const keys = (await knex('scheduled_jobs').select('key').orderBy('key')).map((r: { key: string }) => r.key);
  t.same(keys, ['first', 'good-1', 'good-2']);
  t.equal(inserts(), 5, 'the shared statement that failed, then its four rows one by one');
});
