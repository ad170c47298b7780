import { Writable } from 'node:stream';
import type { Admin, Consumer, ConsumerConfig, ConsumerRunConfig, EachBatchPayload, KafkaMessage, ProducerConfig, ProducerRecord, RecordMetadata, TopicPartitionOffsetAndMetadata, Transaction } from 'kafkajs';
import type { Knex } from 'knex';
import t, { type Test } from '#tap';
import { createLogger } from '#packages/core/logger.js';
import { readCheckpoint, type ConsumerSpec } from '#packages/bus/consumer.js';
import { decodeMessage, encodeEvent } from '#packages/bus/kafka/codec.js';
import { KafkaBusConsumer, type ConsumerKafka } from '#packages/bus/kafka/consumer.js';
import { KafkaRelay, type RelayKafka } from '#packages/bus/kafka/relay.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import type { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { until } from '../support/child-process.js';
import { postgresStore } from '../support/db.js';

/**
 * The Kafka adapters' own logic against recording stand-ins for kafkajs (no broker here): what the
 * relay sends and commits, and what the consumer commits and when. The broker itself is exercised
 * by `make test-kafka` (test/contract/kafka-bus.test.ts, test/scale-out).
 */

/** The suite's database: polled every 20 ms, so relays and consumers notice appends quickly. */
const database = (t: Test) => postgresStore(t, { poolSize: 20, pollIntervalMs: 20 });

/**
 * A stand-in for kafkajs' Kafka as the relay uses it, with Kafka's transaction rules: a
 * transaction's sends and its offsets become visible together at commit, an aborted or unfinished
 * one is never seen, and a producer that registers a transactional id fences the older one of it.
 */
class RecordingKafka implements RelayKafka {
  /** Committed sends, in commit order: what a read_committed consumer sees. */
  readonly sent: ProducerRecord[] = [];
  readonly producerConfigs: (ProducerConfig | undefined)[] = [];
  readonly created: string[] = [];
  topics = new Set<string>();
  /** Committed offset metadata of partition 0 per consumer group: the relay's position. */
  readonly positions = new Map<string, string>();
  /** Decides each send: resolve (kept in the transaction), reject, or a promise to hold it. */
  onSend: (record: ProducerRecord) => 'ok' | 'fail' | Promise<void> = () => 'ok';
  /** When set, a commit's markers reach the partition (and the last stable offset moves) only once it resolves. */
  markersHeld: Promise<void> | null = null;
  /** Offsets of the single partition the stand-in keeps: the next one, and the last stable one. */
  private nextOffset = 0;
  private stableOffset = 0;
  stableOffsetReads = 0;
  private readonly epochs = new Map<string, number>();

  producer(config?: ProducerConfig) {
    this.producerConfigs.push(config);
    const id = config?.transactionalId ?? '';
    let epoch = 0;
    const fenced = () => {
      if (this.epochs.get(id) !== epoch) throw new Error('producer fenced by a newer one (test)');
    };
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      transaction: async (): Promise<Transaction> => {
        if (epoch === 0) this.epochs.set(id, (epoch = (this.epochs.get(id) ?? 0) + 1));
        fenced();
        const pending: ProducerRecord[] = [];
        let offsets: { group: string; metadata: string } | null = null;
        let active = true;
        const send = async (record: ProducerRecord): Promise<RecordMetadata[]> => {
          fenced();
          const decision = this.onSend(record);
          if (decision === 'fail') throw new Error('broker unavailable (test)');
          if (decision !== 'ok') await decision;
          pending.push(record);
          const baseOffset = String(this.nextOffset);
          this.nextOffset += record.messages.length;
          return [{ topicName: record.topic, partition: 0, errorCode: 0, baseOffset }];
        };
        return {
          send,
          sendBatch: async () => [],
          sendOffsets: async ({ consumerGroupId, topics }) => {
            fenced();
            const metadata = (topics[0]!.partitions[0] as { metadata?: string }).metadata;
            offsets = metadata === undefined ? null : { group: consumerGroupId, metadata };
          },
          commit: async () => {
            fenced();
            active = false;
            this.sent.push(...pending);
            if (offsets) this.positions.set(offsets.group, offsets.metadata);
            this.writeMarker();
          },
          abort: async () => {
            active = false;
            this.writeMarker();
          },
          isActive: () => active,
        };
      },
    };
  }

  /** A transaction's end marker: the last stable offset moves past it, at once or once `markersHeld` resolves. */
  private writeMarker(): void {
    const end = ++this.nextOffset;
    const move = () => (this.stableOffset = Math.max(this.stableOffset, end));
    if (this.markersHeld) void this.markersHeld.then(move);
    else move();
  }

  admin(): Pick<Admin, 'connect' | 'listTopics' | 'createTopics' | 'fetchOffsets' | 'fetchTopicOffsets' | 'disconnect'> {
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      fetchTopicOffsets: async () => {
        this.stableOffsetReads++;
        return [{ partition: 0, offset: String(this.stableOffset), high: String(this.nextOffset), low: '0' }];
      },
      listTopics: async () => [...this.topics],
      createTopics: async ({ topics }) => {
        for (const topic of topics) {
          this.created.push(`${topic.topic}/${topic.numPartitions}`);
          this.topics.add(topic.topic);
        }
        return true;
      },
      fetchOffsets: async ({ groupId, topics }) => {
        const metadata = this.positions.get(groupId);
        return (topics ?? []).map((topic) => ({ topic, partitions: [{ partition: 0, offset: metadata ? '0' : '-1', metadata: metadata ?? null }] }));
      },
    };
  }

  /** Every event published so far, decoded, in commit order. */
  published(): RecordedEvent[] {
    return this.sent.flatMap((r) => r.messages.map((m) => decodeMessage({ key: m.key ?? null, value: m.value, headers: m.headers })));
  }
}

async function appendMany(store: PostgresEventStore, count: number, streams = 3): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (let i = 0; i < count; i++) {
    const r = await store.append(`s-${i % streams}`, [{ type: 'thing.happened', data: { i }, metadata: { merchant_id: 'acct_1' } }], { expectedVersion: 'any' });
    out.push(...r.events);
  }
  return out;
}

const ids = (events: readonly RecordedEvent[]) => events.map((e) => e.eventId);
const relayOf = (kafka: RecordingKafka, knex: Knex, store: PostgresEventStore, batchSize?: number) => new KafkaRelay({ kafka, knex, store, topic: 'events', retryDelayMs: 10, ...(batchSize ? { batchSize } : {}) });

t.test('relay: publishes the log in order with key and headers, one transaction per batch that also commits its position', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const written = await appendMany(store, 25);
  const relay = new KafkaRelay({ kafka, knex, store, topic: 'events', batchSize: 10, partitions: 4 });
  await relay.start();
  await relay.caughtUp();
  await relay.stop();
  t.same(kafka.created, ['events/4'], 'the missing topic is created with its partitions');
  t.same(kafka.producerConfigs, [{ transactionalId: 'events.relay', idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false }]);
  t.ok(kafka.sent.every((r) => r.acks === -1 && r.topic === 'events'));
  t.same(ids(kafka.published()), ids(written), 'every event once, in log order');
  const first = kafka.sent[0]!.messages[0]!;
  t.equal(first.key, written[0]!.streamId);
  t.match(first.headers, { 'event-id': written[0]!.eventId, 'event-type': 'thing.happened' });
  const last = written[written.length - 1]!.position;
  t.equal(kafka.positions.get('events.relay'), last, 'the position is committed in Kafka with the messages');
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'), last, 'and mirrored to the checkpoint row');

  // An existing topic is left alone.
  const again = new KafkaRelay({ kafka, knex, store, topic: 'events' });
  await again.start();
  await again.stop();
  t.same(kafka.created, ['events/4']);
});

t.test('relay: caughtUp waits until its last transaction is readable, not only committed (commit markers come after the commit)', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  let writeMarkers!: () => void;
  kafka.markersHeld = new Promise((resolve) => (writeMarkers = resolve));
  const written = await appendMany(store, 5);
  const relay = relayOf(kafka, knex, store);
  await relay.start();
  let caught = false;
  const caughtUp = relay.caughtUp().then(() => (caught = true));
  await until('the batch committed and the stable offset read twice', async () => (kafka.published().length === written.length && kafka.stableOffsetReads >= 2 ? true : undefined));
  t.equal(caught, false, 'committed but not yet readable: still waiting');
  writeMarkers();
  await caughtUp;
  t.equal(caught, true, 'readable once the markers are written');
  await relay.stop();
});

t.test('relay: a failed send aborts the batch; the relay starts again and publishes it once', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const written = await appendMany(store, 6);
  let attempts = 0;
  kafka.onSend = () => (++attempts === 2 ? 'fail' : 'ok');
  const relay = relayOf(kafka, knex, store, 2);
  await relay.start();
  await relay.caughtUp();
  await relay.stop();
  t.ok(attempts > 3, 'the failed batch was sent again');
  t.same(ids(kafka.published()), ids(written), 'every event once, in order');
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'), written[written.length - 1]!.position);
});

t.test('relay: a relay that dies inside a transaction publishes none of it; the next one fences it and publishes each event once', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const written = await appendMany(store, 8);
  // The first relay's send is held: the process is frozen inside its transaction.
  let release!: () => void;
  kafka.onSend = () => new Promise<void>((resolve) => (release = resolve));
  const frozen = relayOf(kafka, knex, store);
  await frozen.start();
  while (!release) await new Promise((r) => setTimeout(r, 10));
  t.same(kafka.sent, [], 'nothing visible before the commit');

  kafka.onSend = () => 'ok';
  const next = relayOf(kafka, knex, store);
  await next.start();
  await next.caughtUp();
  release(); // the frozen relay wakes up fenced: its commit fails
  await next.stop();
  await frozen.stop();
  t.same(ids(kafka.published()), ids(written), 'every event once');
});

t.test('relay: resumes from the position Kafka committed, whatever the mirror row says; a store without one starts from the row', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const first = await appendMany(store, 10);
  const r1 = relayOf(kafka, knex, store, 4);
  await r1.start();
  await r1.caughtUp();
  await r1.stop();
  // The process died after Kafka's commit, before the row moved.
  await knex('bus_checkpoints').where({ name: 'relay:events' }).update({ position: first[3]!.position });
  const sentBefore = kafka.sent.length;
  const second = await appendMany(store, 10);
  const r2 = relayOf(kafka, knex, store, 4);
  await r2.start();
  await r2.caughtUp();
  await r2.stop();
  t.same(ids(kafka.sent.slice(sentBefore).flatMap((r) => r.messages.map((m) => decodeMessage({ key: m.key ?? null, value: m.value })))), ids(second), "only what came after Kafka's position");
  t.same(ids(kafka.published()), ids([...first, ...second]));

  // Upgraded from the relay before transactions: Kafka holds no position yet, the row does.
  const upgraded = new RecordingKafka();
  const r3 = new KafkaRelay({ kafka: upgraded, knex, store, topic: 'events' });
  await r3.start();
  await r3.caughtUp();
  await r3.stop();
  t.same(ids(upgraded.published()), [], 'resumed after the row: nothing again');
});

t.test('relay: two relays at once take turns (each fences the other); nothing lost, nothing twice', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const before = await appendMany(store, 10);
  const a = relayOf(kafka, knex, store, 3);
  const b = relayOf(kafka, knex, store, 5);
  await Promise.all([a.start(), b.start()]);
  const all = [...before, ...(await appendMany(store, 40, 5))];
  await Promise.all([a.caughtUp(), b.caughtUp()]);
  await Promise.all([a.stop(), b.stop()]);
  t.same(ids(kafka.published()), ids(all), 'every event once, in log order');
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'), all[all.length - 1]!.position);
});

type BatchEnd = { topic: string; partition: number; batchSize: number; lastOffset: string };

/** Drives KafkaBusConsumer's eachBatch the way kafkajs does, and records what it commits. */
class ConsumerDriver implements ConsumerKafka {
  config: ConsumerConfig | null = null;
  runConfig: ConsumerRunConfig | null = null;
  subscribed: unknown = null;
  readonly commits: TopicPartitionOffsetAndMetadata[] = [];
  readonly resolved: string[] = [];
  onCommit: (offset: TopicPartitionOffsetAndMetadata) => Promise<void> = async () => undefined;
  running = true;
  /** What disconnect does: at once, or never (a group whose rebalance waits for a dead member). */
  leaves: () => Promise<void> = async () => undefined;
  committedOffsets = new Map<number, string>();
  high = new Map<number, string>();
  /** The consumer's listener for kafkajs' end of a batch (a fetch that held only transaction markers never reaches eachBatch). */
  batchEnd: ((e: { payload: BatchEnd }) => void) | null = null;

  consumer(config: ConsumerConfig) {
    this.config = config;
    return {
      connect: async () => undefined,
      disconnect: () => this.leaves(),
      subscribe: async (s: unknown) => void (this.subscribed = s),
      run: async (c?: ConsumerRunConfig) => void (this.runConfig = c ?? null),
      on: ((_event: string, listener: (e: { payload: BatchEnd }) => void) => {
        this.batchEnd = listener;
        return () => undefined;
      }) as Consumer['on'],
      commitOffsets: async (offsets: TopicPartitionOffsetAndMetadata[]) => {
        for (const o of offsets) {
          await this.onCommit(o);
          this.commits.push(o);
          this.committedOffsets.set(o.partition, o.offset);
        }
      },
    };
  }

  admin(): Pick<Admin, 'connect' | 'fetchTopicOffsets' | 'fetchOffsets' | 'listTopics' | 'createTopics' | 'disconnect'> {
    return {
      connect: async () => undefined,
      listTopics: async () => ['events'],
      createTopics: async () => false,
      disconnect: async () => undefined,
      fetchTopicOffsets: async () => [...this.high].map(([partition, high]) => ({ partition, offset: high, high, low: '0' })),
      fetchOffsets: async () => [{ topic: 'events', partitions: [...this.high.keys()].map((partition) => ({ partition, offset: this.committedOffsets.get(partition) ?? '-1', metadata: null })) }],
    };
  }

  /** A fetch of `messages`; `lastOffset` past the last one stands for the relay's transaction marker after them. */
  async deliver(partition: number, messages: KafkaMessage[], lastOffset = messages[messages.length - 1]!.offset): Promise<void> {
    const eachBatch = this.runConfig?.eachBatch;
    if (!eachBatch) throw new Error('not running');
    const payload: EachBatchPayload = {
      batch: {
        topic: 'events',
        partition,
        highWatermark: String(Number(lastOffset) + 1),
        messages,
        isEmpty: () => messages.length === 0,
        firstOffset: () => messages[0]?.offset ?? null,
        lastOffset: () => lastOffset,
        offsetLag: () => '0',
        offsetLagLow: () => '0',
      },
      resolveOffset: (o) => void this.resolved.push(o),
      heartbeat: async () => undefined,
      pause: () => () => undefined,
      commitOffsetsIfNecessary: async () => undefined,
      uncommittedOffsets: () => ({ topics: [] }),
      isRunning: () => this.running,
      isStale: () => false,
    };
    await eachBatch(payload);
  }
}

function messagesOf(events: readonly RecordedEvent[], firstOffset: number): KafkaMessage[] {
  return events.map((e, i) => {
    const m = encodeEvent(e);
    const headers: Record<string, Buffer> = {};
    for (const [k, v] of Object.entries(m.headers ?? {})) headers[k] = Buffer.from(String(v));
    return { key: Buffer.from(m.key), value: Buffer.from(m.value), headers, timestamp: '0', attributes: 0, offset: String(firstOffset + i) };
  });
}

async function effectsTable(knex: Knex): Promise<void> {
  await knex.raw('CREATE TABLE effects (event_id uuid PRIMARY KEY)');
}

/** A handler that is idempotent on event id, as bus handlers must be. */
function effectSpec(calls: RecordedEvent[][], fail: (call: number) => boolean = () => false): ConsumerSpec {
  return {
    name: 'effects',
    checkpointTable: 'bus_checkpoints',
    batchSize: 2,
    handle: async (trx, events) => {
      calls.push([...events]);
      for (const e of events) await trx('effects').insert({ event_id: e.eventId }).onConflict('event_id').ignore();
      if (fail(calls.length)) throw new Error('handler failed (test)');
    },
  };
}

t.test('consumer: group, no auto-commit, from the beginning; offsets committed chunk by chunk, after the effect is durable', async (t) => {
  const { knex, store } = await database(t);
  await effectsTable(knex);
  const events = await appendMany(store, 5);
  const driver = new ConsumerDriver();
  const calls: RecordedEvent[][] = [];
  const consumer = new KafkaBusConsumer({ kafka: driver, knex, topic: 'events', spec: effectSpec(calls), retryDelayMs: 5 });
  await consumer.start();
  t.match(driver.config, { groupId: 'events.effects' });
  t.match(driver.runConfig, { autoCommit: false, eachBatchAutoResolve: false });
  t.same(driver.subscribed, { topics: ['events'], fromBeginning: true });

  const durableAtCommit: number[] = [];
  driver.onCommit = async () => {
    // Read on another connection: what is committed to Postgres when the offset is committed to Kafka.
    durableAtCommit.push(Number((await knex('effects').count<{ count: string }[]>('* as count'))[0]!.count));
  };
  await driver.deliver(0, messagesOf(events, 10));
  t.same(
    calls.map((c) => c.length),
    [2, 2, 1],
    'chunks of spec.batchSize',
  );
  t.same(
    calls.flat().map((e) => e.eventId),
    ids(events),
    'decoded back into the recorded events, in order',
  );
  t.same(calls.flat()[0], events[0]);
  t.same(
    driver.commits.map((c) => c.offset),
    ['12', '14', '15'],
    'the next offset to read, per chunk',
  );
  t.same(durableAtCommit, [2, 4, 5], 'each offset committed only once its chunk was committed to Postgres');
  t.same(driver.resolved, ['11', '13', '14']);

  // The relay's transactions end in a marker consumers never see: the group moves past it, or it would never be caught up.
  const more = await appendMany(store, 2);
  await driver.deliver(0, messagesOf(more, 15), '17');
  t.same(driver.commits.map((c) => c.offset).slice(3), ['17', '18'], 'the chunk, then past the marker');
  // A fetch of markers only: kafkajs reports it as a batch of none.
  driver.onCommit = async () => undefined;
  driver.batchEnd!({ payload: { topic: 'events', partition: 0, batchSize: 0, lastOffset: '19' } });
  driver.batchEnd!({ payload: { topic: 'events', partition: 0, batchSize: 0, lastOffset: '12' } });
  await new Promise((r) => setImmediate(r));
  t.same(driver.commits.map((c) => c.offset).slice(5), ['20'], 'past markers that reached no eachBatch; never back');
  await consumer.stop();
});

t.test('consumer: a failing handler is retried, its rolled-back effect applied once, the offset committed after', async (t) => {
  const { knex, store } = await database(t);
  await effectsTable(knex);
  const events = await appendMany(store, 2);
  const driver = new ConsumerDriver();
  const calls: RecordedEvent[][] = [];
  const consumer = new KafkaBusConsumer({ kafka: driver, knex, topic: 'events', spec: effectSpec(calls, (n) => n <= 2), retryDelayMs: 5 });
  await consumer.start();
  await driver.deliver(3, messagesOf(events, 0));
  t.equal(calls.length, 3, 'two failures, then success');
  t.same(driver.commits, [{ topic: 'events', partition: 3, offset: '2' }]);
  t.equal(Number((await knex('effects').count<{ count: string }[]>('* as count'))[0]!.count), 2);
  // A redelivery (crash between the Postgres commit and the offset commit) changes nothing: idempotent on event id.
  await driver.deliver(3, messagesOf(events, 0));
  t.equal(Number((await knex('effects').count<{ count: string }[]>('* as count'))[0]!.count), 2);
  await consumer.stop();
});

t.test('consumer: an undecodable message is logged and skipped; stopping ends the batch after the chunk in flight', async (t) => {
  const { knex, store } = await database(t);
  await effectsTable(knex);
  const events = await appendMany(store, 4);
  const lines: string[] = [];
  const log = createLogger('error', new Writable({ write: (chunk: Buffer, _e, cb) => void (lines.push(chunk.toString()), cb()) }));
  const driver = new ConsumerDriver();
  const calls: RecordedEvent[][] = [];
  const consumer = new KafkaBusConsumer({ kafka: driver, knex, topic: 'events', spec: effectSpec(calls), log, retryDelayMs: 5 });
  await consumer.start();
  const messages = messagesOf(events, 0);
  messages.splice(1, 0, { key: null, value: Buffer.from('not json'), headers: {}, timestamp: '0', attributes: 0, offset: '99' });
  messages.forEach((m, i) => (m.offset = String(i)));
  await driver.deliver(0, messages.slice(0, 3));
  t.same(
    calls.flat().map((e) => e.eventId),
    ids(events.slice(0, 2)),
  );
  t.same(
    driver.commits.map((c) => c.offset),
    ['2', '3'],
  );
  t.match(lines.join(''), /undecodable bus message skipped/);

  // Stop arrives while a chunk is handled: that chunk finishes and commits, the rest waits for the next owner.
  calls.length = 0;
  driver.commits.length = 0;
  const spec = effectSpec(calls);
  const slow = new KafkaBusConsumer({
    kafka: driver,
    knex,
    topic: 'events',
    spec: {
      ...spec,
      handle: async (trx, evs) => {
        await spec.handle(trx, evs);
        driver.running = false;
      },
    },
  });
  await slow.start();
  await driver.deliver(0, messagesOf(events, 20));
  t.equal(calls.length, 1, 'one chunk, then stop');
  t.same(
    driver.commits.map((c) => c.offset),
    ['22'],
  );
  await slow.stop();
  await consumer.stop();
});

t.test('consumer: caughtUp waits until the group committed up to the high watermarks', async (t) => {
  const { knex } = await database(t);
  const driver = new ConsumerDriver();
  const consumer = new KafkaBusConsumer({ kafka: driver, knex, topic: 'events', spec: effectSpec([]) });
  await consumer.start();
  driver.high.set(0, '5');
  driver.high.set(1, '0');
  let done = false;
  const waiting = consumer.caughtUp(5).then(() => (done = true));
  await new Promise((r) => setTimeout(r, 30));
  t.notOk(done, 'partition 0 not handled yet');
  driver.committedOffsets.set(0, '5');
  await waiting;
  t.ok(done);
  await consumer.stop();
});

t.test('consumer: stop does not wait longer than its leave timeout for a group that does not let it leave', async (t) => {
  const { knex } = await database(t);
  const lines: string[] = [];
  const log = createLogger('warn', new Writable({ write: (chunk: Buffer, _e, cb) => void (lines.push(chunk.toString()), cb()) }));
  const driver = new ConsumerDriver();
  driver.leaves = () => new Promise<void>(() => undefined);
  const consumer = new KafkaBusConsumer({ kafka: driver, knex, topic: 'events', spec: effectSpec([]), log, leaveTimeoutMs: 20 });
  await consumer.start();
  await consumer.stop();
  t.match(lines.join(''), /leaving the consumer group took too long/, 'stopped anyway, and said so');
});
