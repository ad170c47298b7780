import { randomUUID } from 'node:crypto';
import t from '#tap';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { EsdbEventStore } from '#packages/eventstore/esdb/store.js';
import { eventStoreContract } from '../contract/eventstore-contract.js';
import { EsdbEmulator } from '../support/esdb-emulator.js';

/**
 * The EventStoreDB adapter's own logic (paging $all past system records, scoping, position
 * order, subscription batching, retries, resubscription after a drop) run through the shared
 * contract over an in-memory emulator of the client. The real server's suite is
 * test/contract/esdb-eventstore.test.ts (ESDB_URL).
 */
t.test('contract over the emulator, one shared server, a fresh scope per test', async (t) => {
  const server = new EsdbEmulator();
  eventStoreContract(t, async (t) => {
    const store = new EsdbEventStore(server, { streamPrefix: `s${randomUUID().slice(0, 8)}-`, retryDelayMs: 20, readPageSize: 7 });
    t.teardown(() => store.close());
    return store;
  });
});

t.test('contract over the emulator, unscoped, subscriptions dropped every 13 events', async (t) => {
  eventStoreContract(t, async (t) => {
    const store = new EsdbEventStore(new EsdbEmulator({ dropSubscriptionsEvery: 13 }), { retryDelayMs: 10, readPageSize: 5 });
    t.teardown(() => store.close());
    return store;
  });
});

t.test('a dropped subscription resumes from its checkpoint and reports the drop', async (t) => {
  const store = new EsdbEventStore(new EsdbEmulator({ dropSubscriptionsEvery: 4 }), { retryDelayMs: 5 });
  for (let i = 0; i < 10; i++) await store.append(`s-${i % 3}`, [{ type: 'e', data: { i } }], { expectedVersion: 'any' });
  const seen: RecordedEvent[] = [];
  const errors: unknown[] = [];
  const sub = store.subscribe({ after: null, batchSize: 3, handle: async (b) => void seen.push(...b), onError: (e) => errors.push(e) });
  await sub.caughtUp();
  await sub.stop();
  t.same(
    seen.map((e) => (e.data as { i: number }).i),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    'every event once, in order',
  );
  t.ok(errors.length >= 2, 'drops were reported');
  await store.close();
});

t.test('stop finishes the batch in flight and hands over nothing after it', async (t) => {
  const store = new EsdbEventStore(new EsdbEmulator(), { retryDelayMs: 5 });
  await store.append(
    'a',
    Array.from({ length: 6 }, (_, i) => ({ type: 'e', data: { i } })),
    { expectedVersion: 'no_stream' },
  );
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const batches: number[][] = [];
  let entered!: () => void;
  const first = new Promise<void>((r) => (entered = r));
  const sub = store.subscribe({
    after: null,
    batchSize: 2,
    handle: async (b) => {
      entered();
      await gate;
      batches.push(b.map((e) => (e.data as { i: number }).i));
    },
  });
  await first;
  const stopping = sub.stop();
  release();
  await stopping;
  t.same(batches, [[0, 1]]);
  await store.close();
});
