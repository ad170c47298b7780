import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { eventHash, GENESIS_HASH } from '#packages/eventstore/hash-chain.js';
import { VersionConflictError, type EventStore, type RecordedEvent } from '#packages/eventstore/port.js';

/**
 * The behaviour every EventStore adapter must have. Each adapter's test file runs this against a
 * fresh store; `open` returns a store over an empty log.
 */
export function eventStoreContract(t: Test, open: (t: Test) => Promise<EventStore>): void {
  const stream = (name: string) => `${name}-${randomUUID()}`;
  const ev = (type: string, n = 0) => ({ type, data: { n }, metadata: { merchant_id: 'acct_x', environment: 'sandbox' as const, actor: 'test' } });

  t.test('append to a new stream numbers events from 0 and reads them back with metadata', async (t) => {
    const store = await open(t);
    const id = stream('order');
    const result = await store.append(id, [ev('a', 1), ev('b', 2), ev('c', 3)], { expectedVersion: 'no_stream' });
    t.equal(result.nextVersion, 2);
    const events = await store.readStream(id);
    t.same(
      events.map((e) => [e.version, e.type, e.data]),
      [
        [0, 'a', { n: 1 }],
        [1, 'b', { n: 2 }],
        [2, 'c', { n: 3 }],
      ],
    );
    t.same(events[0]!.metadata, { merchant_id: 'acct_x', environment: 'sandbox', actor: 'test' });
    t.equal(result.position, events[2]!.position);
    t.equal(await store.streamVersion(id), 2);
    t.same(await store.readStream(id, { fromVersion: 2 }).then((e) => e.map((x) => x.type)), ['c']);
    t.equal(await store.streamVersion(stream('none')), 'no_stream');
    t.same(await store.readStream(stream('none')), []);
  });

  t.test('an append answers its events as stored: JSON values, not the objects it was given', async (t) => {
    const store = await open(t);
    const id = stream('stored');
    const data = { at: new Date(0), gone: undefined, nested: { list: [1, 'two', null] } };
    const metadata = { merchant_id: 'acct_x', environment: 'sandbox' as const, actor: 'test' };
    const written = await store.append(id, [{ type: 'a', data, metadata }], { expectedVersion: 'no_stream' });
    const [read] = await store.readStream(id);
    const answered = written.events[0]!;
    t.same(answered.data, { at: '1970-01-01T00:00:00.000Z', nested: { list: [1, 'two', null] } }, 'a Date as its JSON text, an undefined member dropped');
    t.notOk('gone' in (answered.data as object), 'no undefined member left');
    t.same(answered.data, read!.data, 'what a read returns');
    t.same(answered.metadata, read!.metadata);
    t.not(answered.data, data, 'not the object the caller holds');
    data.nested.list.push('later');
    t.same((answered.data as typeof data).nested.list, [1, 'two', null], "the caller's later changes do not reach it");
    t.equal(answered.recordedAt.getTime(), read!.recordedAt.getTime(), 'the same recorded time as a read');
  });

  t.test('a caller-supplied event id is kept', async (t) => {
    const store = await open(t);
    const id = stream('s');
    const eventId = randomUUID();
    await store.append(id, [{ ...ev('x'), eventId }], { expectedVersion: 'no_stream' });
    t.equal((await store.readStream(id))[0]!.eventId, eventId);
  });

  t.test('expected version: number, no_stream, stream_exists and any are all enforced', async (t) => {
    const store = await open(t);
    const id = stream('acct');
    await t.rejects(store.append(id, [ev('x')], { expectedVersion: 'stream_exists' }), VersionConflictError);
    await t.rejects(store.append(id, [ev('x')], { expectedVersion: 0 }), VersionConflictError);
    await store.append(id, [ev('x')], { expectedVersion: 'no_stream' });
    const again = await store.append(id, [ev('y')], { expectedVersion: 'no_stream' }).catch((e: unknown) => e);
    t.type(again, VersionConflictError);
    t.equal((again as VersionConflictError).actual, 0);
    await store.append(id, [ev('y')], { expectedVersion: 0 });
    const stale = await store.append(id, [ev('z')], { expectedVersion: 0 }).catch((e: unknown) => e);
    t.type(stale, VersionConflictError);
    t.equal((stale as VersionConflictError).actual, 1);
    await t.rejects(store.append(id, [ev('z')], { expectedVersion: 5 }), VersionConflictError);
    t.equal((await store.append(id, [ev('z')], { expectedVersion: 'stream_exists' })).nextVersion, 2);
    t.equal((await store.append(id, [ev('w')], { expectedVersion: 'any' })).nextVersion, 3);
    const fresh = stream('fresh');
    t.equal((await store.append(fresh, [ev('w')], { expectedVersion: 'any' })).nextVersion, 0);
    t.same(
      (await store.readStream(id)).map((e) => e.type),
      ['x', 'y', 'z', 'w'],
    );
  });

  t.test('an atomic append writes every stream or none (stores that have it)', async (t) => {
    const store = await open(t);
    if (!store.appendAtomically) {
      t.pass('this store appends one stream at a time; multi-stream changes are sagas');
      return;
    }
    const balance = stream('balance');
    const payout = stream('payout');
    await store.append(balance, [ev('opened')], { expectedVersion: 'no_stream' });
    const results = await store.appendAtomically([
      { streamId: balance, events: [ev('held', 1)], expectedVersion: 0 },
      { streamId: payout, events: [ev('created', 1), ev('submitted', 2)], expectedVersion: 'no_stream' },
    ]);
    t.same(
      results.map((r) => r.nextVersion),
      [1, 1],
    );
    t.same(
      (await store.readStream(payout)).map((e) => e.type),
      ['created', 'submitted'],
    );

    // The second stream's version is stale: the first stream's events must not be written either.
    const stale = await store
      .appendAtomically([
        { streamId: balance, events: [ev('held', 2)], expectedVersion: 1 },
        { streamId: payout, events: [ev('created', 2)], expectedVersion: 'no_stream' },
      ])
      .catch((e: unknown) => e);
    t.type(stale, VersionConflictError);
    t.equal(await store.streamVersion(balance), 1, 'nothing of the failed change was written');
    const other = stream('other');
    const staleFirst = await store
      .appendAtomically([
        { streamId: balance, events: [ev('held', 3)], expectedVersion: 0 },
        { streamId: other, events: [ev('created', 3)], expectedVersion: 'no_stream' },
      ])
      .catch((e: unknown) => e);
    t.type(staleFirst, VersionConflictError);
    t.equal(await store.streamVersion(other), 'no_stream');
    const all = await store.readAll(null, 100);
    t.same(
      all.filter((e) => [balance, payout, other].includes(e.streamId)).map((e) => e.type),
      ['opened', 'held', 'created', 'submitted'],
      'the global log holds the committed change once',
    );
  });

  t.test('every event carries its chain hash: its content and the previous event of its stream, from genesis', async (t) => {
    const store = await open(t);
    const id = stream('chained');
    await store.append(id, [ev('a', 1), ev('b', 2)], { expectedVersion: 'no_stream' });
    await store.append(id, [ev('c', 3)], { expectedVersion: 1 });
    await store.append(id, [ev('d', 4)], { expectedVersion: 'any' });
    const appended = await store.append(id, [ev('e', 5)], { expectedVersion: 'stream_exists' });
    await store.append(stream('other'), [ev('x')], { expectedVersion: 'any' });
    const events = await store.readStream(id);
    let previous = GENESIS_HASH;
    for (const e of events) {
      t.equal(e.hash, eventHash(previous, e), `version ${e.version} chains from the one before`);
      previous = e.hash;
    }
    t.equal(appended.events[0]!.hash, events[4]!.hash, 'the append reports the hash it stored');
    const all = await store.readAll(null, 100);
    t.same(
      all.filter((e) => e.streamId === id).map((e) => e.hash),
      events.map((e) => e.hash),
      'the global log carries the same hashes',
    );
    t.same(events[0]!.metadata, ev('a').metadata, 'the hash is not part of the metadata callers see');
  });

  t.test('50 parallel appends with the same expected version: exactly one wins', async (t) => {
    const store = await open(t);
    const id = stream('balance');
    await store.append(id, [ev('opened')], { expectedVersion: 'no_stream' });
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => store.append(id, [ev('hold', i)], { expectedVersion: 0 })));
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    t.equal(won.length, 1, 'one winner');
    t.equal(lost.length, 49);
    t.ok(
      lost.every((r) => r.reason instanceof VersionConflictError),
      'every loser gets a version conflict',
    );
    t.equal((await store.readStream(id)).length, 2);
  });

  t.test('50 parallel creations of one stream with no_stream: exactly one wins', async (t) => {
    const store = await open(t);
    const id = stream('new');
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => store.append(id, [ev('created', i), ev('more', i)], { expectedVersion: 'no_stream' })));
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    t.ok(results.every((r) => r.status === 'fulfilled' || r.reason instanceof VersionConflictError));
    const events = await store.readStream(id);
    t.same(
      events.map((e) => e.version),
      [0, 1],
    );
    t.equal((events[0]!.data as { n: number }).n, (events[1]!.data as { n: number }).n, 'both events come from the same writer');
  });

  t.test('parallel appends with expected version any all land, with unique consecutive versions', async (t) => {
    const store = await open(t);
    const id = stream('log');
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.append(id, [ev('entry', i)], { expectedVersion: 'any' })));
    const events = await store.readStream(id);
    t.same(
      events.map((e) => e.version),
      Array.from({ length: 30 }, (_, i) => i),
    );
    t.same(new Set(events.map((e) => (e.data as { n: number }).n)).size, 30);
  });

  t.test('readAll pages through the global log from a checkpoint without gaps or repeats', async (t) => {
    const store = await open(t);
    for (let i = 0; i < 7; i++) await store.append(stream('p'), [ev('e', i)], { expectedVersion: 'no_stream' });
    const seen: RecordedEvent[] = [];
    let after: string | null = null;
    for (;;) {
      const batch: RecordedEvent[] = await store.readAll(after, 3);
      if (batch.length === 0) break;
      seen.push(...batch);
      after = batch[batch.length - 1]!.position;
    }
    t.same(
      seen.map((e) => (e.data as { n: number }).n),
      [0, 1, 2, 3, 4, 5, 6],
    );
    t.equal(await store.headPosition(), after);
    const positions = seen.map((e) => e.position);
    t.same([...positions].sort(), positions, 'positions are ordered');
  });

  t.test('concurrent writers to many streams while a subscriber tails: every event once, in stream order', async (t) => {
    const store = await open(t);
    const streams = Array.from({ length: 12 }, () => stream('w'));
    const seen: RecordedEvent[] = [];
    const sub = store.subscribe({ after: null, batchSize: 17, handle: async (batch) => void seen.push(...batch) });
    const writers = Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; i < 25; i++) {
        const target = streams[(w + i) % streams.length]!;
        const events = i % 5 === 0 ? [ev('pair', w), ev('pair', w)] : [ev('single', w)];
        await store.append(target, events, { expectedVersion: 'any' });
      }
    });
    await Promise.all(writers);
    await sub.caughtUp();
    await sub.stop();
    const expected = 16 * 25 + 16 * 5; // 5 of every writer's 25 appends write two events
    t.equal(seen.length, expected, 'saw every event');
    t.equal(new Set(seen.map((e) => e.eventId)).size, expected, 'no event twice');
    const lastVersion = new Map<string, number>();
    let ordered = true;
    for (const e of seen) {
      const prev = lastVersion.get(e.streamId) ?? -1;
      if (e.version !== prev + 1) ordered = false;
      lastVersion.set(e.streamId, e.version);
    }
    t.ok(ordered, 'each stream is seen in version order, without holes');
  });

  t.test('a subscription resumes after its checkpoint', async (t) => {
    const store = await open(t);
    const id = stream('resume');
    await store.append(id, [ev('a'), ev('b')], { expectedVersion: 'no_stream' });
    const first: RecordedEvent[] = [];
    const s1 = store.subscribe({ after: null, handle: async (b) => void first.push(...b) });
    await s1.caughtUp();
    await s1.stop();
    await store.append(id, [ev('c')], { expectedVersion: 1 });
    const second: RecordedEvent[] = [];
    const s2 = store.subscribe({ after: first[first.length - 1]!.position, handle: async (b) => void second.push(...b) });
    await s2.caughtUp();
    await s2.stop();
    t.same(
      first.map((e) => e.type),
      ['a', 'b'],
    );
    t.same(
      second.map((e) => e.type),
      ['c'],
    );
  });

  t.test('a failing handler is retried with the same batch: nothing is skipped', async (t) => {
    const store = await open(t);
    await store.append(stream('f'), [ev('a'), ev('b')], { expectedVersion: 'no_stream' });
    let failures = 0;
    const handled: string[] = [];
    const errors: unknown[] = [];
    const sub = store.subscribe({
      after: null,
      handle: async (batch) => {
        if (failures++ < 2) throw new Error('transient');
        handled.push(...batch.map((e) => e.type));
      },
      onError: (err) => errors.push(err),
    });
    await sub.caughtUp();
    await sub.stop();
    t.same(handled, ['a', 'b']);
    t.equal(errors.length, 2);
  });
}
