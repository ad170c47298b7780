/**
 * Job kinds handled as a batch (`Scheduler.registerBatch`), on a real database: every claimed job
 * of the kind reaches one call; the jobs it answers done are deleted, the ones it answers failed
 * (or all of them, when it throws) run again after the back-off; one lane's jobs never share a
 * call and keep their order; the kind's claim limit is its own, beside the other kinds'; a
 * companion kind's jobs share its lanes, in order, never beside a job of their lane.
 */
import { Writable } from 'node:stream';
import t, { type Test } from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { createLogger } from '#packages/core/logger.js';
import { JobWaits, Scheduler, type Job, type JobKind } from '#packages/scheduler/scheduler.js';
import { migratedDatabase } from '../support/db.js';

interface Item {
  object: string;
  n: number;
}

const kind: JobKind<Item> = { name: 'test.batch', key: (p) => `batch:${p.object}:${p.n}`, lane: (p) => `object:${p.object}` };
const single: JobKind<Item> = { name: 'test.single', key: (p) => `single:${p.object}:${p.n}`, lane: (p) => `object:${p.object}` };

async function setup(t: Test) {
  const { knex } = await migratedDatabase(t);
  const clock = new ManualClock();
  const scheduler = new Scheduler(knex, clock, createLogger('silent'));
  const jobs = () => knex('scheduled_jobs').select('key', 'attempts', 'run_at', 'last_error', 'locked_until').orderBy('key');
  return { knex, clock, scheduler, jobs };
}

t.test('one call for the batch; done jobs deleted, failed ones retried after the back-off, the handler throwing fails them all', async (t) => {
  const { clock, scheduler, jobs } = await setup(t);
  const calls: Item[][] = [];
  let answer: (items: Item[]) => (Error | null)[] = (items) => items.map((i) => (i.n % 2 === 0 ? null : new Error(`odd ${i.n}`)));
  scheduler.registerBatch<Item>(
    kind,
    async (batch) => {
      const items = batch.map((b) => b.payload);
      calls.push(items);
      return answer(items);
    },
    100,
  );
  const enqueue = scheduler.enqueuer(kind);
  for (let n = 0; n < 6; n++) await enqueue({ object: `o${n}`, n }, clock.now());

  t.equal(await scheduler.runDue(), 6, 'six jobs ran');
  t.equal(calls.length, 1, 'in one call');
  t.same(calls[0]!.map((i) => i.n).sort(), [0, 1, 2, 3, 4, 5]);
  const left = await jobs();
  t.same(
    left.map((j) => j.key),
    ['batch:o1:1', 'batch:o3:3', 'batch:o5:5'],
    'the done ones are deleted',
  );
  for (const j of left) {
    t.match(j, { attempts: 1, locked_until: null, last_error: /^odd \d$/ }, `${j.key}: released with its error`);
    t.equal(j.run_at.getTime(), clock.now().getTime() + 1000, `${j.key}: again after 1 s`);
  }

  t.equal(await scheduler.runDue(), 0, 'nothing due before the back-off');
  clock.advance(1000);
  answer = () => {
    throw new Error('the whole batch failed');
  };
  t.equal(await scheduler.runDue(), 3);
  const failed = await jobs();
  t.same(
    failed.map((j) => [j.key, j.attempts, j.last_error, j.run_at.getTime() - clock.now().getTime()]),
    ['batch:o1:1', 'batch:o3:3', 'batch:o5:5'].map((k) => [k, 2, 'the whole batch failed', 2000]),
    'a handler that throws fails every job of the call; the back-off doubles',
  );

  clock.advance(2000);
  answer = (items) => items.map(() => null);
  t.equal(await scheduler.runDue(), 3);
  t.same(await jobs(), [], 'all done');
});

t.test('an answer of the wrong length fails the batch rather than guessing which job is done', async (t) => {
  const { clock, scheduler, jobs } = await setup(t);
  scheduler.registerBatch<Item>(kind, async () => [null], 100);
  const enqueue = scheduler.enqueuer(kind);
  await enqueue({ object: 'a', n: 1 }, clock.now());
  await enqueue({ object: 'b', n: 2 }, clock.now());
  await scheduler.runDue();
  t.same(
    (await jobs()).map((j) => j.last_error),
    ['the test.batch handler answered for 1 of 2 jobs', 'the test.batch handler answered for 1 of 2 jobs'],
  );
});

t.test("one lane's jobs never share a call and run in order; other lanes go together", async (t) => {
  const { knex, clock, scheduler } = await setup(t);
  const calls: string[][] = [];
  scheduler.registerBatch<Item>(
    kind,
    async (batch) => {
      calls.push(batch.map((b) => `${b.payload.object}${b.payload.n}`));
      return batch.map(() => null);
    },
    100,
  );
  const at = (ms: number) => new Date(clock.now().getTime() - ms);
  // Three jobs of object a (due in this order), one each of b and c.
  await scheduler.schedule({ kind: kind.name, key: 'a1', runAt: at(30), payload: { object: 'a', n: 1 } });
  await scheduler.schedule({ kind: kind.name, key: 'a2', runAt: at(20), payload: { object: 'a', n: 2 } });
  await scheduler.schedule({ kind: kind.name, key: 'a3', runAt: at(10), payload: { object: 'a', n: 3 } });
  await scheduler.schedule({ kind: kind.name, key: 'b1', runAt: at(25), payload: { object: 'b', n: 1 } });
  await scheduler.schedule({ kind: kind.name, key: 'c1', runAt: at(5), payload: { object: 'c', n: 1 } });
  t.equal(await scheduler.runDue(), 5);
  t.same(
    calls.map((c) => c.sort()),
    [['a1', 'b1', 'c1'], ['a2'], ['a3']],
    'a1, a2, a3 one call after another',
  );
  t.equal((await knex('scheduled_jobs').count<{ count: string }[]>('* as count'))[0]!.count, '0');
});

t.test("a batch kind's claim limit is its own; other kinds keep theirs and run beside it", async (t) => {
  const { clock, scheduler, jobs } = await setup(t);
  const batchSizes: number[] = [];
  const singles: number[] = [];
  scheduler.registerBatch<Item>(
    kind,
    async (batch) => {
      batchSizes.push(batch.length);
      return batch.map(() => null);
    },
    120,
  );
  scheduler.register<Item>(single, async (p, job: Job) => {
    t.equal(job.attempts, 1, 'a job runs with its attempt counted');
    singles.push(p.n);
  });
  const batchEnqueue = scheduler.enqueuer(kind);
  const singleEnqueue = scheduler.enqueuer(single);
  for (let n = 0; n < 150; n++) await batchEnqueue({ object: `o${n}`, n }, clock.now());
  for (let n = 0; n < 60; n++) await singleEnqueue({ object: `s${n}`, n }, clock.now());

  t.equal(await scheduler.runDue(50), 120 + 50, 'one claim: 120 of the batch kind, 50 of the others');
  t.same(batchSizes, [120]);
  t.equal(singles.length, 50);
  t.equal((await jobs()).length, 40);
  t.equal(await scheduler.runUntilIdle(), 40);
  t.same(batchSizes, [120, 30]);
  t.equal(singles.length, 60);
});

t.test('jobs leased by this claim are not claimed again until the lease ends', async (t) => {
  const { knex, clock, scheduler } = await setup(t);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const seen: string[] = [];
  scheduler.registerBatch<Item>(
    kind,
    async (batch) => {
      seen.push(...batch.map((b) => b.job.key));
      await held;
      return batch.map(() => null);
    },
    100,
  );
  await scheduler.enqueuer(kind)({ object: 'a', n: 1 }, clock.now());
  const first = scheduler.runDue();
  // The first run has claimed (the handler holds it): a second scheduler sees nothing due.
  while (seen.length === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  const other = new Scheduler(knex, clock, createLogger('silent'));
  other.registerBatch<Item>(kind, async (batch) => batch.map(() => null), 100);
  t.equal(await other.runDue(), 0, 'leased');
  release();
  t.equal(await first, 1);
  t.same(seen, ['batch:a:1']);
});

t.test("a companion kind shares the batch kind's lanes: a lane's jobs of either kind keep their order and never run at once", async (t) => {
  const { knex, clock, scheduler } = await setup(t);
  const log: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  scheduler.registerBatch<Item>(
    kind,
    async (batch) => {
      const names = batch.map((b) => `${b.payload.object}${b.payload.n}`).sort();
      log.push(`batch start ${names.join(',')}`);
      // Held until the companions that could overtake would have run: without the shared lanes, they run meanwhile.
      if (names.includes('a1')) await held;
      log.push(`batch end ${names.join(',')}`);
      return batch.map(() => null);
    },
    100,
    [single.name],
  );
  scheduler.register<Item>(single, async (p) => {
    log.push(`single ${p.object}${p.n}`);
  });
  const at = (ms: number) => new Date(clock.now().getTime() - ms);
  // Object a: a batch job, then a companion, then a batch job; object b: a companion first, then a batch job; c: a companion alone.
  await scheduler.schedule({ kind: kind.name, key: 'a1', runAt: at(30), payload: { object: 'a', n: 1 } });
  await scheduler.schedule({ kind: single.name, key: 'a2', runAt: at(20), payload: { object: 'a', n: 2 } });
  await scheduler.schedule({ kind: kind.name, key: 'a3', runAt: at(10), payload: { object: 'a', n: 3 } });
  await scheduler.schedule({ kind: single.name, key: 'b1', runAt: at(25), payload: { object: 'b', n: 1 } });
  await scheduler.schedule({ kind: kind.name, key: 'b2', runAt: at(5), payload: { object: 'b', n: 2 } });
  await scheduler.schedule({ kind: single.name, key: 'c1', runAt: at(28), payload: { object: 'c', n: 1 } });
  const ran = scheduler.runDue();
  // Once a1's call is under way, let every job that is free to run start before it ends.
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  while (!log.some((entry) => entry.startsWith('batch start') && entry.includes('a1'))) await tick();
  for (let i = 0; i < 20; i++) await tick();
  release();
  t.equal(await ran, 6);
  const when = (entry: string) => log.indexOf(entry);
  t.equal(log.length, 9, log.join(' | '));
  t.ok(when('single a2') > when('batch end a1'), 'a2 waits for the batch call of a1 (its lane), though another kind');
  t.ok(when('batch start a3') > when('single a2'), 'a3 waits for a2');
  t.ok(when('batch start b2') > when('single b1'), 'b2 waits for b1, due before it');
  t.ok(when('single b1') < when('batch end a1') && when('single c1') < when('batch end a1'), "other lanes' companions run beside the batch call");
  t.ok(when('batch start b2') > when('batch end a1') && when('batch start a3') > when('batch end b2'), 'one batch call per round');
  t.equal((await knex('scheduled_jobs').count<{ count: string }[]>('* as count'))[0]!.count, '0');
});

t.test('a kind shares the lanes of one batch kind only', async (t) => {
  const { scheduler } = await setup(t);
  scheduler.registerBatch<Item>(kind, async (batch) => batch.map(() => null), 10, [single.name]);
  t.throws(() => scheduler.registerBatch<Item>({ ...kind, name: 'test.other' }, async (batch) => batch.map(() => null), 10, [single.name]), /already shares the lanes of test\.batch/);
});

t.test('a timer no longer needed is dropped: drops at once share one DELETE, a missing job is no error, other kinds and keys stay', async (t) => {
  const { knex, clock, scheduler, jobs } = await setup(t);
  let deletes = 0;
  knex.on('query', (q: { sql: string }) => {
    if (/^DELETE FROM scheduled_jobs/.test(q.sql)) deletes++;
  });
  const later = new Date(clock.now().getTime() + 600_000);
  const enqueue = scheduler.enqueuer(single);
  await Promise.all(Array.from({ length: 30 }, (_, n) => enqueue({ object: `o${n}`, n }, later)));
  await scheduler.enqueuer(kind)({ object: 'o0', n: 0 }, later);
  const drop = scheduler.unscheduler(single);
  await Promise.all([...Array.from({ length: 20 }, (_, n) => drop({ object: `o${n}`, n }, later)), drop({ object: 'never', n: 99 }, later)]);
  t.same(
    (await jobs()).map((j) => j.key),
    ['batch:o0:0', ...Array.from({ length: 10 }, (_, i) => `single:o${20 + i}:${20 + i}`).sort()],
    'the 20 dropped are gone; the rest and the other kind stay',
  );
  t.ok(deletes >= 1 && deletes <= 2, `${deletes} DELETE statements for 21 drops`);
  clock.advance(600_000);
  const ran: number[] = [];
  scheduler.register<Item>(single, async (p) => void ran.push(p.n));
  scheduler.register<Item>(kind, async () => undefined);
  await scheduler.runUntilIdle();
  t.same(
    ran.sort((a, b) => a - b),
    [20, 21, 22, 23, 24, 25, 26, 27, 28, 29],
    'only the jobs not dropped run',
  );
});

t.test('a job that only has to wait (JobWaits) runs again after the back-off and is logged at info, not as an error', async (t) => {
  const { knex } = await migratedDatabase(t);
  const clock = new ManualClock();
  const lines: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  const scheduler = new Scheduler(knex, clock, createLogger('info', destination));
  let waits = true;
  const ran: number[] = [];
  scheduler.register<Item>(single, async (item) => {
    ran.push(item.n);
    if (waits) throw new JobWaits('held by another process');
  });
  await scheduler.enqueuer(single)({ object: 'o', n: 1 }, clock.now());
  t.equal(await scheduler.runDue(), 1);
  t.match(await knex('scheduled_jobs').first('attempts', 'last_error'), { attempts: 1, last_error: 'held by another process' }, 'kept, to run again');
  waits = false;
  clock.advance(1000);
  t.equal(await scheduler.runDue(), 1, 'again after the back-off');
  t.same(ran, [1, 1]);
  t.equal(
    await knex('scheduled_jobs')
      .count<{ count: string }[]>({ count: '*' })
      .then((r) => Number(r[0]!.count)),
    0,
    'then done',
  );
  t.ok(
    lines.some((l) => l.level === 30 && l.msg === 'scheduled job waits; will run again'),
    'logged at info',
  );
  t.notOk(
    lines.some((l) => l.level >= 50),
    'no error logged',
  );
});
