import { Writable } from 'node:stream';
import type { Admin, ConsumerConfig, ConsumerRunConfig, EachBatchPayload, KafkaMessage, ProducerConfig, ProducerRecord, RecordMetadata, TopicPartitionOffsetAndMetadata } from 'kafkajs';
import type { Knex } from 'knex';
import t, { type Test } from 'tap';
import { createLogger } from '../../packages/core/logger.js';
import { readCheckpoint, type ConsumerSpec } from '../../packages/bus/consumer.js';
import { decodeMessage, encodeEvent } from '../../packages/bus/kafka/codec.js';
import { KafkaBusConsumer, type ConsumerKafka } from '../../packages/bus/kafka/consumer.js';
import { KafkaRelay, type RelayKafka } from '../../packages/bus/kafka/relay.js';
import type { RecordedEvent } from '../../packages/eventstore/port.js';
import type { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
import { postgresStore } from '../support/db.js';

/**
 * The Kafka adapters' own logic against recording stand-ins for kafkajs (no broker here): what the
 * relay sends and when it checkpoints, and what the consumer commits and when. The broker itself
 * is exercised by test/contract/kafka-bus.test.ts (KAFKA_BROKERS).
 */

/** The suite's database: polled every 20 ms, so relays and consumers notice appends quickly. */
const database = (t: Test) => postgresStore(t, { poolSize: 20, pollIntervalMs: 20 });

/** A stand-in for kafkajs' Kafka as the relay uses it: records producer configs, sends and topics. */
class RecordingKafka implements RelayKafka {
  readonly sent: ProducerRecord[] = [];
  readonly producerConfigs: (ProducerConfig | undefined)[] = [];
  readonly created: string[] = [];
  topics = new Set<string>();
  /** Decides each send: resolve (recorded), reject (not recorded), or a promise to hold it. */
  onSend: (record: ProducerRecord) => 'ok' | 'fail' | Promise<void> = () => 'ok';

  producer(config?: ProducerConfig) {
    this.producerConfigs.push(config);
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      send: async (record: ProducerRecord): Promise<RecordMetadata[]> => {
        const decision = this.onSend(record);
        if (decision === 'fail') throw new Error('broker unavailable (test)');
        if (decision !== 'ok') await decision;
        this.sent.push(record);
        return [];
      },
    };
  }

  admin(): Pick<Admin, 'connect' | 'listTopics' | 'createTopics' | 'disconnect'> {
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      listTopics: async () => [...this.topics],
      createTopics: async ({ topics }) => {
        for (const topic of topics) {
          this.created.push(`${topic.topic}/${topic.numPartitions}`);
          this.topics.add(topic.topic);
        }
        return true;
      },
    };
  }

  /** Every event published so far, decoded, in send order. */
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

t.test('relay: publishes the log in order with key, headers, acks -1 and an idempotent producer; checkpoints after the ack', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const written = await appendMany(store, 25);
  const relay = new KafkaRelay({ kafka, knex, store, topic: 'events', batchSize: 10, partitions: 4 });
  await relay.start();
  await relay.caughtUp();
  await relay.stop();
  t.same(kafka.created, ['events/4'], 'the missing topic is created with its partitions');
  t.same(kafka.producerConfigs, [{ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false }]);
  t.ok(kafka.sent.every((r) => r.acks === -1 && r.topic === 'events'));
  t.same(ids(kafka.published()), ids(written), 'every event once, in log order');
  const first = kafka.sent[0]!.messages[0]!;
  t.equal(first.key, written[0]!.streamId);
  t.match(first.headers, { 'event-id': written[0]!.eventId, 'event-type': 'thing.happened' });
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'), written[written.length - 1]!.position);

  // An existing topic is left alone.
  const again = new KafkaRelay({ kafka, knex, store, topic: 'events' });
  await again.start();
  await again.stop();
  t.same(kafka.created, ['events/4']);
});

t.test('relay: a failed send is retried and the checkpoint does not move before the ack', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const written = await appendMany(store, 6);
  let attempts = 0;
  const checkpoints: (string | null)[] = [];
  kafka.onSend = () => {
    attempts++;
    return attempts <= 2 ? 'fail' : 'ok';
  };
  const relay = new KafkaRelay({ kafka, knex, store, topic: 'events' });
  await relay.start();
  // While sends fail, the checkpoint stays where it was.
  while (attempts < 2) await new Promise((r) => setTimeout(r, 10));
  checkpoints.push(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'));
  await relay.caughtUp();
  await relay.stop();
  t.same(checkpoints, [null]);
  t.same(ids(kafka.published()), ids(written));
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'), written[written.length - 1]!.position);
});

t.test('relay: a crash after the send but before the checkpoint re-publishes (duplicates), never loses', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const written = await appendMany(store, 8);
  // The first relay's send reaches Kafka, then the process "dies" before its checkpoint.
  let releaseCrashed!: (err: Error) => void;
  kafka.onSend = (record) => {
    kafka.sent.push(record); // the broker has it
    return new Promise<void>((_, reject) => (releaseCrashed = reject));
  };
  const crashed = new KafkaRelay({ kafka, knex, store, topic: 'events' });
  await crashed.start();
  while (kafka.sent.length === 0) await new Promise((r) => setTimeout(r, 10));
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'), null, 'no checkpoint yet');

  kafka.onSend = () => 'ok';
  const next = new KafkaRelay({ kafka, knex, store, topic: 'events' });
  await next.start();
  await next.caughtUp();
  await next.stop();
  releaseCrashed(new Error('process died (test)'));
  await crashed.stop();

  const published = ids(kafka.published());
  t.ok(ids(written).every((id) => published.includes(id)), 'nothing lost');
  t.ok(published.length > written.length, 'the unacknowledged batch went out twice (consumers dedupe on event id)');
});

t.test('relay: a restarted relay resumes after its checkpoint; two relays at once lose nothing', async (t) => {
  const { knex, store } = await database(t);
  const kafka = new RecordingKafka();
  const first = await appendMany(store, 10);
  const r1 = new KafkaRelay({ kafka, knex, store, topic: 'events', batchSize: 4 });
  await r1.start();
  await r1.caughtUp();
  await r1.stop();
  const sentBefore = kafka.sent.length;
  const second = await appendMany(store, 10);
  const r2 = new KafkaRelay({ kafka, knex, store, topic: 'events', batchSize: 4 });
  await r2.start();
  await r2.caughtUp();
  await r2.stop();
  t.same(ids(kafka.sent.slice(sentBefore).flatMap((r) => r.messages.map((m) => decodeMessage({ key: m.key ?? null, value: m.value })))), ids(second), 'only what came after the checkpoint');
  t.same(ids(kafka.published()), ids([...first, ...second]));

  // Two relays of the same topic: the checkpoint compare-and-set makes the loser resume from the winner's row.
  const third = appendMany(store, 40, 5);
  const a = new KafkaRelay({ kafka, knex, store, topic: 'events', batchSize: 3 });
  const b = new KafkaRelay({ kafka, knex, store, topic: 'events', batchSize: 5 });
  await Promise.all([a.start(), b.start()]);
  const all = [...first, ...second, ...(await third)];
  await Promise.all([a.caughtUp(), b.caughtUp()]);
  await Promise.all([a.stop(), b.stop()]);
  const published = new Set(ids(kafka.published()));
  t.ok(ids(all).every((id) => published.has(id)), 'nothing lost with two relays');
  t.equal(await readCheckpoint(knex, 'bus_checkpoints', 'relay:events'), all[all.length - 1]!.position);
});

/** Drives KafkaBusConsumer's eachBatch the way kafkajs does, and records what it commits. */
class ConsumerDriver implements ConsumerKafka {
  config: ConsumerConfig | null = null;
  runConfig: ConsumerRunConfig | null = null;
  subscribed: unknown = null;
  readonly commits: TopicPartitionOffsetAndMetadata[] = [];
  readonly resolved: string[] = [];
  onCommit: (offset: TopicPartitionOffsetAndMetadata) => Promise<void> = async () => undefined;
  running = true;
  committedOffsets = new Map<number, string>();
  high = new Map<number, string>();

  consumer(config: ConsumerConfig) {
    this.config = config;
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      subscribe: async (s: unknown) => void (this.subscribed = s),
      run: async (c?: ConsumerRunConfig) => void (this.runConfig = c ?? null),
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

  async deliver(partition: number, messages: KafkaMessage[]): Promise<void> {
    const eachBatch = this.runConfig?.eachBatch;
    if (!eachBatch) throw new Error('not running');
    const payload: EachBatchPayload = {
      batch: {
        topic: 'events',
        partition,
        highWatermark: String(Number(messages[messages.length - 1]!.offset) + 1),
        messages,
        isEmpty: () => messages.length === 0,
        firstOffset: () => messages[0]?.offset ?? null,
        lastOffset: () => messages[messages.length - 1]!.offset,
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
  t.match(driver.config, { groupId: 'sika.effects' });
  t.match(driver.runConfig, { autoCommit: false, eachBatchAutoResolve: false });
  t.same(driver.subscribed, { topics: ['events'], fromBeginning: true });

  const durableAtCommit: number[] = [];
  driver.onCommit = async () => {
    // Read on another connection: what is committed to Postgres when the offset is committed to Kafka.
    durableAtCommit.push(Number((await knex('effects').count<{ count: string }[]>('* as count'))[0]!.count));
  };
  await driver.deliver(0, messagesOf(events, 10));
  t.same(calls.map((c) => c.length), [2, 2, 1], 'chunks of spec.batchSize');
  t.same(calls.flat().map((e) => e.eventId), ids(events), 'decoded back into the recorded events, in order');
  t.same(calls.flat()[0], events[0]);
  t.same(driver.commits.map((c) => c.offset), ['12', '14', '15'], 'the next offset to read, per chunk');
  t.same(durableAtCommit, [2, 4, 5], 'each offset committed only once its chunk was committed to Postgres');
  t.same(driver.resolved, ['11', '13', '14']);
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
  t.same(calls.flat().map((e) => e.eventId), ids(events.slice(0, 2)));
  t.same(driver.commits.map((c) => c.offset), ['2', '3']);
  t.match(lines.join(''), /undecodable bus message skipped/);

  // Stop arrives while a chunk is handled: that chunk finishes and commits, the rest waits for the next owner.
  calls.length = 0;
  driver.commits.length = 0;
  const spec = effectSpec(calls);
  const slow = new KafkaBusConsumer({
    kafka: driver,
    knex,
    topic: 'events',
    spec: { ...spec, handle: async (trx, evs) => {
      await spec.handle(trx, evs);
      driver.running = false;
    } },
  });
  await slow.start();
  await driver.deliver(0, messagesOf(events, 20));
  t.equal(calls.length, 1, 'one chunk, then stop');
  t.same(driver.commits.map((c) => c.offset), ['22']);
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
