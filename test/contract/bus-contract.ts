import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { BusConsumer } from '#packages/bus/port.js';
import type { EventStore, RecordedEvent } from '#packages/eventstore/port.js';

/** A bus over an empty event log, as each adapter's test file builds it. */
export interface BusFixture {
  /** Where events are appended; the bus carries them to consumers. */
  store: EventStore;
  /** A consumer of the bus named `spec.name` (embedded: a checkpoint row; Kafka: a consumer group). */
  consumer(spec: ConsumerSpec): BusConsumer;
  /** Stops what feeds the bus from the log (Kafka: the relay) and starts a new one, as a crash or deploy would. No-op when there is none. */
  restartFeed(): Promise<void>;
}

/**
 * The behaviour every bus adapter must have: each event reaches each consumer at least once, in
 * version order per stream; a consumer that stops resumes where it stopped; a failed batch comes
 * again; consumers with different names are independent.
 */
export function busContract(t: Test, open: (t: Test) => Promise<BusFixture>): void {
  const ev = (n: number) => ({ type: 'thing.happened', data: { n }, metadata: { merchant_id: 'acct_bus', environment: 'sandbox' as const } });

  /** A consumer that records what it is handed; `fail(batch)` returning true throws instead. */
  function recorder(fixture: BusFixture, name: string, fail: (calls: number) => boolean = () => false) {
    const seen: RecordedEvent[] = [];
    let calls = 0;
    const consumer = fixture.consumer({
      name,
      checkpointTable: 'bus_checkpoints',
      batchSize: 7,
      handle: async (_trx, events) => {
        if (fail(++calls)) throw new Error('handler failed (test)');
        seen.push(...events);
      },
    });
    return { consumer, seen };
  }

  /** Appends `count` events spread over `streams` streams by several concurrent writers; returns them as recorded. */
  async function writeMany(store: EventStore, streams: string[], count: number): Promise<RecordedEvent[]> {
    const written: RecordedEvent[] = [];
    let next = 0;
    const writers = Array.from({ length: 6 }, async (_, w) => {
      for (;;) {
        const n = next;
        if (n >= count) return;
        const pair = n % 4 === 0 && n + 1 < count;
        next += pair ? 2 : 1;
        const target = streams[(w + n) % streams.length]!;
        const result = await store.append(target, pair ? [ev(n), ev(n + 1)] : [ev(n)], { expectedVersion: 'any' });
        written.push(...result.events);
      }
    });
    await Promise.all(writers);
    return written;
  }

  /** Every written event was seen, and each stream's versions were first seen in order, without holes. */
  function assertDelivered(t: Test, written: readonly RecordedEvent[], seen: readonly RecordedEvent[]): void {
    const seenIds = new Set(seen.map((e) => e.eventId));
    const missing = written.filter((e) => !seenIds.has(e.eventId));
    t.equal(missing.length, 0, `every event delivered (${written.length})`);
    // Each stream's versions start at the lowest one written in this part of the test.
    const firstSeen = new Map<string, number>();
    for (const e of written) firstSeen.set(e.streamId, Math.min(firstSeen.get(e.streamId) ?? Infinity, e.version - 1));
    let ordered = true;
    for (const e of seen) {
      const high = firstSeen.get(e.streamId) ?? -1;
      if (e.version <= high) continue; // a redelivery: allowed (at-least-once)
      if (e.version !== high + 1) ordered = false;
      firstSeen.set(e.streamId, e.version);
    }
    t.ok(ordered, 'each stream delivered in version order, without holes');
    const expectedIds = new Set(written.map((e) => e.eventId));
    t.ok(
      seen.every((e) => expectedIds.has(e.eventId)),
      'nothing delivered that was not written',
    );
    const delivered = seen.find((e) => e.eventId === written[0]!.eventId);
    t.same(delivered && { ...delivered, recordedAt: delivered.recordedAt.toISOString() }, { ...written[0]!, recordedAt: written[0]!.recordedAt.toISOString() }, 'events arrive intact (data, metadata, version, position)');
  }

  const streamsOf = (n: number) => Array.from({ length: n }, (_, i) => `bus-${i}-${randomUUID()}`);

  t.test('events of several streams, written concurrently, reach a consumer at least once and in order per stream', async (t) => {
    const fixture = await open(t);
    const { consumer, seen } = recorder(fixture, `c-${randomUUID()}`);
    await consumer.start();
    const written = await writeMany(fixture.store, streamsOf(5), 120);
    await consumer.caughtUp();
    await consumer.stop();
    assertDelivered(t, written, seen);
  });

  t.test('a consumer that stops and starts again resumes where it stopped; a feed restart loses nothing', async (t) => {
    const fixture = await open(t);
    const name = `c-${randomUUID()}`;
    const streams = streamsOf(4);
    const before = await writeMany(fixture.store, streams, 30);
    const first = recorder(fixture, name);
    await first.consumer.start();
    await first.consumer.caughtUp();
    await first.consumer.stop();
    assertDelivered(t, before, first.seen);

    const whileStopped = await writeMany(fixture.store, streams, 20);
    await fixture.restartFeed();
    const afterRestart = await writeMany(fixture.store, streams, 20);
    const second = recorder(fixture, name);
    await second.consumer.start();
    await second.consumer.caughtUp();
    await second.consumer.stop();
    assertDelivered(t, [...whileStopped, ...afterRestart], second.seen);
    const old = new Set(before.map((e) => e.eventId));
    t.equal(second.seen.filter((e) => old.has(e.eventId)).length, 0, 'after a clean stop nothing already handled comes again');
  });

  t.test('a failing handler loses nothing: the batch comes again', async (t) => {
    const fixture = await open(t);
    const { consumer, seen } = recorder(fixture, `c-${randomUUID()}`, (calls) => calls === 2 || calls === 3);
    const written = await writeMany(fixture.store, streamsOf(3), 40);
    await consumer.start();
    await consumer.caughtUp();
    await consumer.stop();
    assertDelivered(t, written, seen);
  });

  t.test('consumers with different names each get every event', async (t) => {
    const fixture = await open(t);
    const a = recorder(fixture, `a-${randomUUID()}`);
    const b = recorder(fixture, `b-${randomUUID()}`);
    await a.consumer.start();
    const written = await writeMany(fixture.store, streamsOf(3), 25);
    await b.consumer.start();
    await Promise.all([a.consumer.caughtUp(), b.consumer.caughtUp()]);
    await Promise.all([a.consumer.stop(), b.consumer.stop()]);
    assertDelivered(t, written, a.seen);
    assertDelivered(t, written, b.seen);
  });
}
