import type { Admin, Consumer, ConsumerConfig, EachBatchPayload } from 'kafkajs';
import type { Knex } from 'knex';
import type { Logger } from '#packages/core/logger.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import type { ConsumerSpec } from '../consumer.js';
import type { BusConsumer } from '../port.js';
import { decodeMessage, groupIdFor, nextOffset, partitionCaughtUp } from './codec.js';
import { DEFAULT_TOPIC_PARTITIONS, ensureTopic } from './relay.js';

type GroupConsumer = Pick<Consumer, 'connect' | 'subscribe' | 'run' | 'commitOffsets' | 'disconnect' | 'on'>;
type OffsetsAdmin = Pick<Admin, 'connect' | 'fetchTopicOffsets' | 'fetchOffsets' | 'listTopics' | 'createTopics' | 'disconnect'>;

/** What the consumer uses of a kafkajs `Kafka` (which is one; tests pass a driver). */
export interface ConsumerKafka {
  consumer(config: ConsumerConfig): GroupConsumer;
  admin(): OffsetsAdmin;
}

export interface KafkaBusConsumerOptions {
  kafka: ConsumerKafka;
  knex: Knex;
  topic: string;
  /** The same spec the embedded bus takes: the consumer group is `<topic>.<name>`, `checkpointTable` is unused (offsets live in Kafka). */
  spec: ConsumerSpec;
  /** Used when the topic does not exist yet (the consumer may start before the relay): 6 partitions, replication 1. */
  partitions?: number;
  replicationFactor?: number;
  /** Back-off before a failed batch is handled again (1 s). */
  retryDelayMs?: number;
  /** How long stop() waits to leave the group (10 s). */
  leaveTimeoutMs?: number;
  log?: Logger;
}

const LEAVE_TIMEOUT_MS = 10_000;

/**
 * A bus consumer in a Kafka consumer group. Each partition's messages are decoded back into
 * RecordedEvents and handed to `spec.handle` in chunks of `spec.batchSize`, inside a Postgres
 * transaction; the offset is committed only after that transaction committed (autoCommit off).
 * So a crash between the two hands the chunk over again: delivery is at-least-once, and
 * deduplication is the handler's job. The handlers are idempotent on event id (the webhook
 * dispatcher inserts webhook_events with ON CONFLICT DO NOTHING on the event's id). Order holds per
 * stream (one stream, one partition); across streams there is no order.
 */
export class KafkaBusConsumer implements BusConsumer {
  private consumer: GroupConsumer | null = null;
  private admin: OffsetsAdmin | null = null;
  private readonly groupId: string;
  /** Per partition: the highest offset committed by this member, and the commit in flight (commits never go back). */
  private readonly committed = new Map<number, { offset: bigint; chain: Promise<void> }>();

  constructor(private readonly options: KafkaBusConsumerOptions) {
    this.groupId = groupIdFor(options.topic, options.spec.name);
  }

  async start(): Promise<void> {
    await ensureTopic(this.options.kafka, this.options.topic, this.options.partitions ?? DEFAULT_TOPIC_PARTITIONS, this.options.replicationFactor ?? 1);
    const consumer = this.options.kafka.consumer({ groupId: this.groupId, allowAutoTopicCreation: false });
    this.consumer = consumer;
    await consumer.connect();
    // A new group reads the topic from its start: nothing published before it existed is lost.
    await consumer.subscribe({ topics: [this.options.topic], fromBeginning: true });
    // A fetch that held only transaction markers (the relay commits a transaction per batch) never
    // reaches eachBatch: its offset is committed here, or the group would never reach the end.
    consumer.on('consumer.end_batch_process', ({ payload }) => {
      if (payload.batchSize === 0 && /^\d+$/.test(payload.lastOffset)) void this.commit(consumer, payload.topic, payload.partition, nextOffset(payload.lastOffset)).catch(() => undefined);
    });
    this.committed.clear();
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: (payload) => this.eachBatch(consumer, payload) });
  }

  private async eachBatch(consumer: GroupConsumer, { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const size = Math.max(1, this.options.spec.batchSize ?? 500);
    const log = this.options.log;
    let handled: string | null = null;
    for (let i = 0; i < batch.messages.length; i += size) {
      if (!isRunning() || isStale()) return; // stopping, or the partition moved: the rest comes again from the committed offset
      const chunk = batch.messages.slice(i, i + size);
      const events: RecordedEvent[] = [];
      for (const message of chunk) {
        try {
          events.push(decodeMessage(message));
        } catch (err) {
          // Not written by the relay and never going to decode: blocking the partition on it would stop every stream behind it.
          log?.error({ err, topic: batch.topic, partition: batch.partition, offset: message.offset, consumer: this.options.spec.name }, 'undecodable bus message skipped');
        }
      }
      for (let attempt = 0; events.length > 0; attempt++) {
        try {
          await this.options.knex.transaction((trx) => this.options.spec.handle(trx, events));
          break;
        } catch (err) {
          log?.error({ err, consumer: this.options.spec.name, partition: batch.partition, attempt }, 'bus batch failed; retrying');
          await sleep(this.options.retryDelayMs ?? 1000);
          if (!isRunning() || isStale()) return;
          await heartbeat();
        }
      }
      const last = chunk[chunk.length - 1]!.offset;
      await this.commit(consumer, batch.topic, batch.partition, nextOffset(last));
      resolveOffset(last);
      handled = last;
      await heartbeat();
    }
    // Every message handled: a transaction marker after the last one is passed too.
    const tail = batch.lastOffset();
    if (tail !== handled && isRunning() && !isStale()) {
      await this.commit(consumer, batch.topic, batch.partition, nextOffset(tail));
      resolveOffset(tail);
    }
  }

  /** Commits `offset` (the next to read) for the partition, in order, unless a higher one already was. */
  private commit(consumer: GroupConsumer, topic: string, partition: number, offset: string): Promise<void> {
    const state = this.committed.get(partition) ?? { offset: -1n, chain: Promise.resolve() };
    this.committed.set(partition, state);
    // A failed commit fails its caller only; the next one still runs (and covers it).
    const next = state.chain
      .catch(() => undefined)
      .then(async () => {
        if (BigInt(offset) <= state.offset) return;
        await consumer.commitOffsets([{ topic, partition, offset }]);
        state.offset = BigInt(offset);
      });
    state.chain = next;
    return next;
  }

  /**
   * Resolves when the group has committed everything that was on the topic at the call (every
   * partition's committed offset at its high watermark). Group-wide: with several members, it
   * waits for all of them.
   */
  async caughtUp(pollMs = 100): Promise<void> {
    const admin = (this.admin ??= this.options.kafka.admin());
    await admin.connect();
    const targets = await admin.fetchTopicOffsets(this.options.topic);
    for (;;) {
      const [committed] = await admin.fetchOffsets({ groupId: this.groupId, topics: [this.options.topic] });
      const done = targets.every((t) => {
        const c = committed?.partitions.find((p) => p.partition === t.partition)?.offset ?? '-1';
        return partitionCaughtUp(c, t.low, t.high);
      });
      if (done || !this.consumer) return;
      await sleep(pollMs);
    }
  }

  /**
   * Leaves the group after the chunk in flight has been handled and its offset committed. Leaving
   * waits for a rebalance in progress (one that waits, up to its session timeout, for a member that
   * died): after LEAVE_TIMEOUT_MS this member stops waiting and the broker drops it the same way.
   * Nothing is lost: offsets are committed per chunk, after the chunk's transaction.
   */
  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = null;
    if (consumer) {
      let timer: NodeJS.Timeout | undefined;
      const left = await Promise.race([consumer.disconnect().then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.options.leaveTimeoutMs ?? LEAVE_TIMEOUT_MS)))]).finally(() =>
        clearTimeout(timer),
      );
      if (!left) this.options.log?.warn({ group: this.groupId }, 'leaving the consumer group took too long; the broker will drop this member');
    }
    await this.admin?.disconnect();
    this.admin = null;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
