import type { Knex } from 'knex';
import type { Test } from 'tap';
import t from '#tap';
import { ConsumerGroup, readCheckpoint, type ConsumerSpec } from '#packages/bus/consumer.js';
import type { Logger } from '#packages/core/logger.js';
import { chainSealer, verifyLog } from '#packages/eventstore/audit-chain.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { postgresStore } from '../support/db.js';

/** The consumers of a process in one group (packages/bus/consumer.ts, docs/performance.md step 28). */

const CHECKPOINTS = 'bus_checkpoints';

/** A consumer that writes one row per event it acts on, in the batch's transaction; `fail` makes its handler throw. */
function writer(name: string, options: { handles?: string[]; fail?: () => boolean } = {}): ConsumerSpec & { calls: number } {
  const spec = {
    name,
    checkpointTable: CHECKPOINTS,
    calls: 0,
    ...(options.handles ? { handles: options.handles } : {}),
    handle: async (trx: Knex.Transaction, events: readonly RecordedEvent[]) => {
      spec.calls += 1;
      const rows = events.filter((e) => !options.handles || options.handles.includes(e.type)).map((e) => ({ consumer: name, event_id: e.eventId }));
      if (rows.length > 0) await trx('group_rows').insert(rows);
      if (options.fail?.()) throw new Error(`${name} failed (test)`);
    },
  };
  return spec;
}

async function setUp(t: Test) {
  const { knex, store } = await postgresStore(t, { poolSize: 10 });
  await knex.schema.createTable('group_rows', (table) => {
    table.text('consumer').notNullable();
    table.text('event_id').notNullable();
  });
  const append = async (n: number, type = 'thing.happened') => {
    for (let i = 0; i < n; i++) await store.append(`s-${type}-${i}-${Math.random()}`, [{ type, data: { i } }], { expectedVersion: 'no_stream' });
  };
  /** Rows each consumer committed per event: every event's count must be 1. */
  const committed = async (consumer: string) => {
    const rows = await knex('group_rows').where({ consumer }).select<{ event_id: string; n: string }[]>('event_id', knex.raw('count(*) AS n')).groupBy('event_id');
    return { events: rows.length, twice: rows.filter((r) => Number(r.n) > 1).length };
  };
  const head = async () => (await store.headPosition())!;
  return { knex, store, append, committed, head };
}

t.test('the consumers that act on a batch share one transaction, whose one statement claims all their checkpoints and stores those left behind', async (t) => {
  const { knex, store, append, head } = await setUp(t);
  const a = writer('a');
  const b = writer('b');
  const picky = writer('picky', { handles: ['wanted.thing'] });
  // A deferral that outlasts the test: only a transaction that runs anyway (or caughtUp) stores picky's checkpoint.
  const group = new ConsumerGroup(knex, store, [{ spec: a }, { spec: b }, { spec: picky, deferMs: 3_600_000 }]);
  await group.start();
  t.teardown(() => group.stop());
  await append(1);
  await group.caughtUp();

  const statements: string[] = [];
  const count = (q: { sql: string }) => void (/pg_notify|\bevents\b|streams/.test(q.sql) || statements.push(q.sql));
  knex.on('query', count);
  await store.append('one-more', [{ type: 'thing.happened', data: {} }], { expectedVersion: 'no_stream' });
  await group.caughtUp();
  knex.off('query', count);
  const kinds = statements.map((s) => s.trim().split(/\s+/)[0]!.toUpperCase());
  t.same(kinds, ['BEGIN;', 'UPDATE', 'INSERT', 'INSERT', 'COMMIT;'], `one transaction: one claim of a's, b's and picky's checkpoints, each handler's insert (${statements.join(' | ')})`);
  t.ok(
    statements.some((s) => /AS v\(name text, expected text, position text\)/.test(s)),
    'the claim is one compare-and-set of every checkpoint',
  );
  const at = await head();
  for (const name of ['a', 'b', 'picky']) t.equal(await readCheckpoint(knex, CHECKPOINTS, name), at, `${name}'s checkpoint at the head`);
  t.equal(picky.calls, 0, 'picky acted on nothing');
});

t.test('a consumer failing in the shared transaction neither holds back nor loses nor doubles another consumer’s work; it catches up on its own and rejoins', async (t) => {
  const { knex, store, append, committed, head } = await setUp(t);
  let broken = true;
  const steady = writer('steady');
  const flaky = writer('flaky', { fail: () => broken });
  await append(12);
  const target = await head();
  // steady's own transaction commits before flaky, after it in the group, fails alone and leaves (no timing: the group says so).
  let left: () => void = () => undefined;
  const flakyLeft = new Promise<void>((resolve) => (left = resolve));
  const log = {
    error: (fields: { consumer?: string }, message: string) => void (fields.consumer === 'flaky' && /retrying on its own/.test(message) && left()),
    warn: () => undefined,
    info: () => undefined,
  } as unknown as Logger;
  // flaky retries only when asked whether the group caught up (its timer is an hour).
  const group = new ConsumerGroup(knex, store, [{ spec: steady }, { spec: flaky }], log, 3_600_000);
  await group.start();
  t.teardown(() => group.stop());
  await flakyLeft;
  t.equal(await readCheckpoint(knex, CHECKPOINTS, 'steady'), target, 'steady reached the head while flaky failed');
  t.same(await committed('steady'), { events: 12, twice: 0 }, 'steady committed every event once while flaky failed');
  t.same(await committed('flaky'), { events: 0, twice: 0 }, "flaky's failed batches committed nothing");
  t.not(await readCheckpoint(knex, CHECKPOINTS, 'flaky'), target, 'flaky did not move past what it failed on');

  broken = false;
  await append(3);
  await group.caughtUp(); // flaky retries at once when asked, then rejoins
  t.same(await committed('flaky'), { events: 15, twice: 0 }, 'flaky, mended, committed every event once');
  t.same(await committed('steady'), { events: 15, twice: 0 }, 'steady: nothing lost or doubled');
  const at = await head();
  t.equal(await readCheckpoint(knex, CHECKPOINTS, 'flaky'), at);
  t.equal(await readCheckpoint(knex, CHECKPOINTS, 'steady'), at);

  // Back in the group: the next batch is one shared transaction again.
  const begins: string[] = [];
  const count = (q: { sql: string }) => void (/^BEGIN/i.test(q.sql) && begins.push(q.sql));
  knex.on('query', count);
  await append(1);
  await group.caughtUp();
  knex.off('query', count);
  t.equal(begins.length, 1, 'flaky rejoined: one transaction for both');
  t.same(await committed('flaky'), { events: 16, twice: 0 });
});

t.test('a group started over checkpoints at different places (a crash between batches, deferred checkpoints not stored) repeats nothing and skips nothing', async (t) => {
  const { knex, store, append, committed, head } = await setUp(t);
  const first = writer('first');
  const second = writer('second');
  const before = new ConsumerGroup(knex, store, [{ spec: first }]);
  await before.start();
  await append(5);
  await before.caughtUp();
  await before.stop(); // as a crash would leave it: first at the head, second never run
  const firstAt = await head();
  await append(4);

  const after = new ConsumerGroup(knex, store, [{ spec: writer('first') }, { spec: second }]);
  await after.start();
  t.teardown(() => after.stop());
  await after.caughtUp();
  t.same(await committed('first'), { events: 9, twice: 0 }, 'first: the 4 events after its checkpoint, none of the 5 before again');
  t.same(await committed('second'), { events: 9, twice: 0 }, 'second: every event from the start of the log');
  t.not(firstAt, await head());
});

t.test('two instances of a consumer racing on its checkpoint (two processes) commit every event once between them', async (t) => {
  const { knex, store, append, committed, head } = await setUp(t);
  const here = new ConsumerGroup(knex, store, [{ spec: writer('shared') }, { spec: writer('mine') }]);
  const there = new ConsumerGroup(knex, store, [{ spec: writer('shared') }]);
  await here.start();
  await there.start();
  t.teardown(() => Promise.all([here.stop(), there.stop()]));
  await Promise.all([append(15), append(15, 'other.thing')]);
  await Promise.all([here.caughtUp(), there.caughtUp()]);
  t.same(await committed('shared'), { events: 30, twice: 0 }, 'each batch claimed by one instance; the other, finding its checkpoint moved, read on from it');
  t.same(await committed('mine'), { events: 30, twice: 0 }, 'the other consumer of the group went on meanwhile');
  const at = await head();
  t.equal(await readCheckpoint(knex, CHECKPOINTS, 'shared'), at);
  t.equal(await readCheckpoint(knex, CHECKPOINTS, 'mine'), at);
});

t.test('a batch only the sealer acts on is one statement: its seal and the checkpoints that may not wait', async (t) => {
  const { knex, store, append, head } = await setUp(t);
  const picky = writer('picky', { handles: ['wanted.thing'] });
  const group = new ConsumerGroup(knex, store, [{ spec: chainSealer(4) }, { spec: picky, deferMs: 0 }]);
  await group.start();
  t.teardown(() => group.stop());
  await append(1);
  await group.caughtUp();
  const statements: string[] = [];
  // The appends' and the log's statements left out (the sealer's own name a column `events`).
  const count = (q: { sql: string }) => void (/pg_notify|streams|FROM events\b|INTO events\b/.test(q.sql) || statements.push(q.sql));
  knex.on('query', count);
  await append(1);
  await group.caughtUp();
  knex.off('query', count);
  t.equal(statements.length, 1, `one statement (${statements.map((s) => s.slice(0, 40)).join(' | ')})`);
  t.match(statements[0], /p0_moved AS/, "the sealer's part");
  t.match(statements[0], /AS v\(name text, expected text, position text\)/, "picky's checkpoint moved beside it");
  t.equal(await readCheckpoint(knex, CHECKPOINTS, 'picky'), await head(), "picky's checkpoint at the head");
  t.equal((await verifyLog(store, knex)).firstBad, null, 'the chain verifies');
});

t.test('a sealer whose seal rode on a shared transaction that failed seals the batch on its own; nothing is sealed twice', async (t) => {
  const { knex, store, append } = await setUp(t);
  let failing = true;
  const flaky = writer('flaky', { fail: () => failing });
  let left: () => void = () => undefined;
  const flakyLeft = new Promise<void>((resolve) => (left = resolve));
  const log = {
    error: (fields: { consumer?: string }, message: string) => void (fields.consumer === 'flaky' && /retrying on its own/.test(message) && left()),
    warn: () => undefined,
    info: () => undefined,
  } as unknown as Logger;
  const alone: string[] = [];
  const count = (q: { sql: string }) => void (/^WITH p0_moved AS/.test(q.sql.trim()) && alone.push(q.sql));
  knex.on('query', count);
  await append(5);
  const group = new ConsumerGroup(knex, store, [{ spec: chainSealer(2) }, { spec: flaky }], log, 3_600_000);
  await group.start();
  t.teardown(() => group.stop());
  await flakyLeft;
  failing = false;
  await group.caughtUp(); // the batch's sealing on its own is done once the group caught up
  knex.off('query', count);
  t.equal(alone.length, 1, 'the seal rolled back with the shared transaction, then sealed in a statement of its own');
  await append(3);
  await group.caughtUp();
  const report = await verifyLog(store, knex);
  t.equal(report.firstBad, null, 'the chain verifies');
  t.equal(report.checkpoints, 4, 'checkpoints at 2, 4, 6 and 8 events (the head), each once');
  t.equal((await knex('audit.chain_head').first<{ events: string }>('events')).events, '8', 'every event sealed once');
});

t.test('the sealer seals a batch in one statement, remembers the head it left, and the chain verifies', async (t) => {
  const { knex, store, append } = await setUp(t);
  const group = new ConsumerGroup(knex, store, [{ spec: chainSealer(4) }, { spec: writer('beside') }]);
  await group.start();
  t.teardown(() => group.stop());
  await append(3);
  await group.caughtUp();
  const statements: string[] = [];
  const count = (q: { sql: string }) => void (/audit\./.test(q.sql) && statements.push(q.sql));
  knex.on('query', count);
  await append(6);
  await group.caughtUp();
  knex.off('query', count);
  t.ok(statements.length >= 1, 'it sealed');
  t.ok(
    statements.every((s) => /^WITH m0 AS \(UPDATE .* p0_moved AS/s.test(s.trim())),
    `each batch's seal is a part of the group's claim, nothing read first (${statements.length}: ${statements.map((s) => s.slice(0, 40)).join(' | ')})`,
  );
  const report = await verifyLog(store, knex);
  t.equal(report.firstBad, null);
  t.equal(report.checkpoints, 3, 'the checkpoints at 4 and 8 events and the head match');

  // A head changed behind its back is read again, never overwritten.
  await knex('audit.chain_head').update({ chain_hash: 'f'.repeat(64) });
  await append(1);
  await group.caughtUp();
  const forged = await verifyLog(store, knex);
  t.match(forged.firstBad?.reason, /does not match its checkpoint/, 'the sealer went on from the stored head, so verify names the change');
});

t.test('a caught-up group reads the log at most every few ms: commits that come meanwhile share one read; caughtUp() reads at once', async (t) => {
  const { knex, store, append, committed } = await setUp(t);
  const a = writer('a');
  // Spaced by an hour (its poll interval too): only caughtUp() makes it read before that.
  const group = new ConsumerGroup(knex, store, [{ spec: a }], undefined, undefined, 3_600_000);
  await group.start();
  t.teardown(() => group.stop());
  await append(1);
  await group.caughtUp();
  let reads = 0;
  const count = (q: { sql: string }) => void (/FROM events\s+WHERE transaction_id < pg_snapshot_xmin/.test(q.sql) && reads++);
  knex.on('query', count);
  await append(9); // nine commits, each waking the group
  t.equal(reads, 0, 'caught up, it read nothing while the commits came');
  await group.caughtUp();
  knex.off('query', count);
  // One read, or a second when the first met the read fence of a transaction still open (a NOTIFY's).
  t.ok(reads >= 1 && reads <= 2, `asked whether it caught up, it read at once, the nine commits in one read (${reads})`);
  t.same(await committed('a'), { events: 10, twice: 0 }, 'every event handled once');
});
