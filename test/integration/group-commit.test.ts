/**
 * Group commit in the Postgres event store: concurrent commits share a transaction, and each
 * keeps its own expected versions: a conflict or a failure fails only its own commit.
 */
import t from '#tap';
import type { Test } from 'tap';
import { VersionConflictError, type RecordedEvent } from '#packages/eventstore/port.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { DatabaseNotifications } from '#packages/core/notifications.js';
import { migratedDatabase } from '../support/db.js';

const ev = (type: string, n = 0) => ({ type, data: { n } });

/**
 * A store with one batch in flight. `hold()` appends an event whose inline projection waits for
 * `release`: everything appended meanwhile waits in the queue and goes out as the next batch.
 */
async function heldStore(t: Test, onInline: (events: RecordedEvent[]) => void = () => undefined) {
  const { knex } = await migratedDatabase(t, { poolSize: 10 });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const store = new PostgresEventStore(knex, {
    groupCommit: { batchesInFlight: 1 },
    inline: async (_trx, events) => {
      if (events.some((e) => e.type === 'hold')) await gate;
      onInline(events);
    },
  });
  t.teardown(() => store.close());
  const hold = () => ({ release, held: store.append('holder', [ev('hold')], { expectedVersion: 'no_stream' }) });
  return { knex, store, hold };
}

async function transactionsOf(knex: import('knex').Knex, streams: string[]): Promise<Map<string, string>> {
  const rows = await knex('events').whereIn('stream_id', streams).select('stream_id', knex.raw('transaction_id::text AS tx'));
  return new Map(rows.map((r: { stream_id: string; tx: string }) => [r.stream_id, r.tx]));
}

t.test('64 concurrent appends to their own streams all land, in fewer transactions than appends', async (t) => {
  const { knex } = await migratedDatabase(t, { poolSize: 10 });
  const store = new PostgresEventStore(knex);
  t.teardown(() => store.close());
  const streams = Array.from({ length: 64 }, (_, i) => `w-${i}`);
  const results = await Promise.all(streams.map((s, i) => store.append(s, [ev('written', i), ev('written', i + 1)], { expectedVersion: 'no_stream' })));
  t.same(
    results.map((r) => r.nextVersion),
    streams.map(() => 1),
  );
  const txs = await transactionsOf(knex, streams);
  t.equal(txs.size, 64, 'every stream written');
  t.ok(new Set(txs.values()).size < 64, `${new Set(txs.values()).size} transactions for 64 appends`);
  for (const s of streams)
    t.same(
      (await store.readStream(s)).map((e) => e.version),
      [0, 1],
      `${s} has its two events`,
    );
});

t.test('commits queued while batches are in flight go out shared evenly among the free slots, none left alone', async (t) => {
  const { knex } = await migratedDatabase(t, { poolSize: 10 });
  const store = new PostgresEventStore(knex, { groupCommit: { batchesInFlight: 4 } });
  t.teardown(() => store.close());
  const streams = Array.from({ length: 64 }, (_, i) => `even-${i}`);
  // The first goes out at once, alone (no batch in flight); the other 63 are queued in the same
  // turn and cut at its end: three batches of 21, not three more of one and then one of 60.
  await Promise.all(streams.map((s) => store.append(s, [ev('written')], { expectedVersion: 'no_stream' })));
  const perTransaction = new Map<string, number>();
  for (const tx of (await transactionsOf(knex, streams)).values()) perTransaction.set(tx, (perTransaction.get(tx) ?? 0) + 1);
  t.same(
    [...perTransaction.values()].sort((a, b) => a - b),
    [1, 21, 21, 21],
    'commits per transaction',
  );
});

t.test('in one batch, a stale expected version fails only its own append', async (t) => {
  const { knex, store, hold } = await heldStore(t);
  await store.append('stale', [ev('first')], { expectedVersion: 'no_stream' });
  const { release, held } = hold();
  const good = store.append('fresh', [ev('ok')], { expectedVersion: 'no_stream' });
  const stale = store.append('stale', [ev('late')], { expectedVersion: 'no_stream' });
  const other = store.append('other', [ev('ok')], { expectedVersion: 'no_stream' });
  release();
  await held;
  const [goodResult, staleResult, otherResult] = await Promise.allSettled([good, stale, other]);
  t.equal(goodResult.status, 'fulfilled');
  t.equal(otherResult.status, 'fulfilled');
  t.equal(staleResult.status, 'rejected');
  t.ok(staleResult.status === 'rejected' && staleResult.reason instanceof VersionConflictError, 'a version conflict');
  t.same(
    (await store.readStream('stale')).map((e) => e.type),
    ['first'],
    'the stale append wrote nothing',
  );
  const txs = await transactionsOf(knex, ['fresh', 'other']);
  t.equal(txs.get('fresh'), txs.get('other'), 'the two winners shared one transaction');
});

t.test('a multi-stream commit with one stale stream writes none of its streams; its batch neighbours land', async (t) => {
  const { knex, store, hold } = await heldStore(t);
  await store.append('taken', [ev('first')], { expectedVersion: 'no_stream' });
  const { release, held } = hold();
  const partial = store.appendAtomically([
    { streamId: 'left', events: [ev('left')], expectedVersion: 'no_stream' },
    { streamId: 'taken', events: [ev('right')], expectedVersion: 'no_stream' },
  ]);
  const neighbour = store.appendAtomically([
    { streamId: 'a', events: [ev('a')], expectedVersion: 'no_stream' },
    { streamId: 'b', events: [ev('b')], expectedVersion: 'no_stream' },
  ]);
  release();
  await held;
  const [partialResult, neighbourResult] = await Promise.allSettled([partial, neighbour]);
  t.ok(partialResult.status === 'rejected' && partialResult.reason instanceof VersionConflictError, 'the partial commit is a conflict');
  t.equal(partialResult.status === 'rejected' && (partialResult.reason as VersionConflictError).streamId, 'taken', 'naming the stale stream');
  t.same(await store.readStream('left'), [], 'nothing written to the stream that was free');
  t.equal(await store.streamVersion('left'), 'no_stream');
  t.equal(neighbourResult.status, 'fulfilled');
  const txs = await transactionsOf(knex, ['a', 'b']);
  t.equal(txs.size, 2);
});

t.test('an inline projection failure fails only the commit that caused it', async (t) => {
  const seen: string[] = [];
  const { store, hold } = await heldStore(t, (events) => {
    if (events.some((e) => e.type === 'poison')) throw new Error('projection refused');
    seen.push(...events.map((e) => e.streamId));
  });
  const { release, held } = hold();
  const before = store.append('before', [ev('ok')], { expectedVersion: 'no_stream' });
  const poisoned = store.append('poisoned', [ev('poison')], { expectedVersion: 'no_stream' });
  const after = store.append('after', [ev('ok')], { expectedVersion: 'no_stream' });
  release();
  await held;
  const [b, p, a] = await Promise.allSettled([before, poisoned, after]);
  t.equal(b.status, 'fulfilled');
  t.equal(a.status, 'fulfilled');
  t.ok(p.status === 'rejected' && (p.reason as Error).message === 'projection refused', 'the poisoned commit gets its own error');
  t.equal(await store.streamVersion('poisoned'), 'no_stream', 'and wrote nothing');
  t.ok(seen.includes('before') && seen.includes('after'), 'the others were projected');
});

t.test('two commits on one stream never share a batch: the second is checked against the first', async (t) => {
  const { store, hold } = await heldStore(t);
  const { release, held } = hold();
  const first = store.append('chain', [ev('one')], { expectedVersion: 'no_stream' });
  const second = store.append('chain', [ev('two')], { expectedVersion: 0 });
  const duplicate = store.append('chain', [ev('dup')], { expectedVersion: 0 });
  release();
  await held;
  const results = await Promise.allSettled([first, second, duplicate]);
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected'],
  );
  t.same(
    (await store.readStream('chain')).map((e) => e.type),
    ['one', 'two'],
  );
});

t.test('a conflict is named from the batch statement itself: no statement reads the versions afterwards', async (t) => {
  const { knex } = await migratedDatabase(t, { poolSize: 10 });
  const store = new PostgresEventStore(knex);
  t.teardown(() => store.close());
  await store.append('taken', [ev('first'), ev('second')], { expectedVersion: 'no_stream' });
  await store.append('other', [ev('first')], { expectedVersion: 'no_stream' });
  const statements: string[] = [];
  const count = (q: { sql: string }) => statements.push(q.sql);
  knex.on('query', count);
  t.teardown(() => void knex.off('query', count));
  const stale = await store.append('taken', [ev('late')], { expectedVersion: 0 }).catch((err: unknown) => err);
  t.ok(stale instanceof VersionConflictError, 'a version conflict');
  t.equal((stale as VersionConflictError).actual, 1, 'with the version the stream is at');
  const created = await store.append('taken', [ev('again')], { expectedVersion: 'no_stream' }).catch((err: unknown) => err);
  t.equal((created as VersionConflictError).actual, 1, 'creating an existing stream names its version too');
  const partial = await store
    .appendAtomically([
      { streamId: 'fresh', events: [ev('new')], expectedVersion: 'no_stream' },
      { streamId: 'other', events: [ev('late')], expectedVersion: 'no_stream' },
    ])
    .catch((err: unknown) => err);
  t.equal((partial as VersionConflictError).streamId, 'other', 'a multi-stream commit names its stale stream');
  t.equal((partial as VersionConflictError).actual, 0);
  t.same(
    statements.filter((sql) => /SELECT version FROM streams/.test(sql)),
    [],
    'no version read after the statement',
  );
});

t.test('an append tells the other processes in its own statement: they hear it, and no statement of its own was sent', async (t) => {
  const db = await migratedDatabase(t);
  const store = new PostgresEventStore(db.knex);
  const other = new DatabaseNotifications(db.url); // another process's listening connection
  t.teardown(async () => {
    await store.close();
    await other.close();
  });
  let heard: () => void = () => undefined;
  const heardIt = new Promise<void>((resolve) => (heard = resolve));
  await other.listen('sika_events', () => heard());
  const statements: string[] = [];
  const count = (q: { sql: string }) => void statements.push(q.sql);
  db.knex.on('query', count);
  await store.append('told-1', [{ type: 'thing.happened', data: {} }], { expectedVersion: 'no_stream' });
  await heardIt;
  db.knex.off('query', count);
  t.equal(statements.length, 1, `one statement, the batch's (${statements.map((s) => s.trim().slice(0, 30)).join(' | ')})`);
  t.match(statements[0], /pg_notify/, 'its NOTIFY, delivered at its commit');
});

t.test("a commit chosen as a deadlock's victim is written again, once, and lands", async (t) => {
  const { knex } = await migratedDatabase(t, { poolSize: 10 });
  await knex.raw('CREATE TABLE deadlock_rows (id int PRIMARY KEY)');
  await knex.raw('INSERT INTO deadlock_rows VALUES (1), (2)');
  const other = await knex.transaction();
  await other.raw('SELECT id FROM deadlock_rows WHERE id = 1 FOR UPDATE');
  let inlineRuns = 0;
  let holdsRowTwo!: () => void;
  const rowTwoHeld = new Promise<void>((resolve) => (holdsRowTwo = resolve));
  const store = new PostgresEventStore(knex, {
    inline: async (trx) => {
      if (inlineRuns++ > 0) return;
      // The first attempt takes row 2, then waits for row 1, which the other transaction holds
      // while it waits for row 2: Postgres aborts this one, the first to wait, after deadlock_timeout.
      await trx.raw('SELECT id FROM deadlock_rows WHERE id = 2 FOR UPDATE');
      holdsRowTwo();
      await trx.raw('SELECT id FROM deadlock_rows WHERE id = 1 FOR UPDATE');
    },
  });
  t.teardown(() => store.close());
  const appended = store.append('victim', [ev('deadlocked')], { expectedVersion: 'no_stream' });
  await rowTwoHeld;
  // The victim is the transaction whose deadlock check runs first: the one that waited first, by
  // deadlock_timeout. The append waits for row 1 before the other asks for row 2, half a second later.
  while (!(await knex.raw('SELECT 1 FROM pg_locks WHERE NOT granted')).rows.length) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 500));
  const otherDone = other.raw('SELECT id FROM deadlock_rows WHERE id = 2 FOR UPDATE').then(() => other.commit());
  const result = await appended;
  await otherDone;
  t.equal(result.nextVersion, 0, 'the append landed');
  t.equal(inlineRuns, 2, 'written again after the deadlock, once');
  t.same(
    (await knex('events').where({ stream_id: 'victim' }).select('type')).map((r: { type: string }) => r.type),
    ['deadlocked'],
    'its event once',
  );
});
