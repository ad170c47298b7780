import type { Admin, PartitionOffset, Producer, ProducerConfig } from 'kafkajs';
import type { Knex } from 'knex';
import type { Logger } from '#packages/core/logger.js';
import type { EventStore, RecordedEvent, Subscription } from '#packages/eventstore/port.js';
import { readCheckpoint } from '../consumer.js';
import { chunkMessages, encodeEvent } from './codec.js';

export const RELAY_CHECKPOINTS = 'bus_checkpoints';
/** Partitions of the topic when the relay or a consumer creates it (a stream stays on one partition). */
export const DEFAULT_TOPIC_PARTITIONS = 6;

/** What the relay uses of a kafkajs transactional producer. */
export type RelayProducer = Pick<Producer, 'connect' | 'transaction' | 'disconnect'>;

/** What the relay uses of a kafkajs `Kafka` (which is one; tests pass a recorder). */
export interface RelayKafka {
  producer(config?: ProducerConfig): RelayProducer;
  admin(): Pick<Admin, 'connect' | 'listTopics' | 'createTopics' | 'fetchOffsets' | 'fetchTopicOffsets' | 'disconnect'>;
}

export interface KafkaRelayOptions {
  kafka: RelayKafka;
  knex: Knex;
  store: EventStore;
  topic: string;
  /** Checkpoint row name in bus_checkpoints, a mirror of the position Kafka holds (default `relay:<topic>`). */
  name?: string;
  /** Events read from the log per batch (500). */
  batchSize?: number;
  /** Bytes of keys and values per send, below the broker's message.max.bytes (900 000). */
  maxRequestBytes?: number;
  /** Used when the topic does not exist yet: partitions (6) and replication factor (1, one broker). */
  partitions?: number;
  replicationFactor?: number;
  /** Pause before starting again after a failed batch (1 s). */
  retryDelayMs?: number;
  log?: Logger;
}

/**
 * Publishes the event log to a Kafka topic, each stream position exactly once: key = stream id
 * (per-aggregate order through the partitioner), headers event-id and event-type, value = the
 * recorded event as JSON.
 *
 * Each batch is one Kafka transaction that also records the log position it ends at, as the
 * offset metadata of the consumer group `<topic>.relay` (the group has no members; its offset
 * means nothing). So the messages and the position the relay resumes from commit together: a
 * crash before the commit leaves an aborted transaction that consumers (read_committed, kafkajs'
 * default) never see, and the next relay publishes the batch again; a crash after it resumes
 * after it. A relay starts by registering the transactional id `<topic>.relay`, which fences an
 * earlier relay and ends its open transaction, and only then reads the position. Any failure
 * starts the relay again the same way, so a second relay is safe (they take turns; run one).
 *
 * The position is also mirrored to the row `relay:<topic>` of bus_checkpoints, for operators and
 * for stores upgraded from the relay before transactions (it is read when Kafka has none).
 * No database transaction is held open while sending (that would hold back the store's xmin fence).
 */
export class KafkaRelay {
  private readonly name: string;
  private readonly transactionalId: string;
  private producer: RelayProducer | null = null;
  private sub: Subscription | null = null;
  private stopped = false;
  private restarting: Promise<void> | null = null;
  /** Per partition, the offset of the first message the last committed transaction wrote there. */
  private lastTransaction = new Map<number, string>();

  constructor(private readonly options: KafkaRelayOptions) {
    this.name = options.name ?? `relay:${options.topic}`;
    this.transactionalId = `${options.topic}.relay`;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await ensureTopic(this.options.kafka, this.options.topic, this.options.partitions ?? DEFAULT_TOPIC_PARTITIONS, this.options.replicationFactor ?? 1);
    await this.open();
  }

  /** A producer that has fenced any earlier relay, then a subscription from the position Kafka has committed. */
  private async open(): Promise<void> {
    const { kafka, knex, store, topic, log } = this.options;
    const producer = kafka.producer({ transactionalId: this.transactionalId, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    let position: string | null;
    try {
      await producer.connect();
      // The first transaction registers the transactional id: an earlier relay is fenced and its
      // open transaction ended, so the position read next is final.
      await (await producer.transaction()).abort();
      position = (await committedPosition(kafka, topic, this.transactionalId)) ?? (await readCheckpoint(knex, RELAY_CHECKPOINTS, this.name));
    } catch (err) {
      await producer.disconnect().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await producer.disconnect();
      return;
    }
    this.producer = producer;
    log?.info({ relay: this.name, position }, 'relay resuming');
    const sub: Subscription = store.subscribe({
      after: position,
      batchSize: this.options.batchSize ?? 500,
      handle: (events) => this.publish(producer, events),
      onError: (err) => this.failed(sub, err),
    });
    this.sub = sub;
  }

  /** One batch, one transaction: the messages and the position after them. */
  private async publish(producer: RelayProducer, events: readonly RecordedEvent[]): Promise<void> {
    const { topic, knex } = this.options;
    const next = events[events.length - 1]!.position;
    const transaction = await producer.transaction();
    const firstOffsets = new Map<number, string>();
    try {
      for (const messages of chunkMessages(events.map(encodeEvent), this.options.maxRequestBytes ?? 900_000)) {
        for (const sent of await transaction.send({ topic, acks: -1, messages })) {
          if (sent.baseOffset !== undefined && !firstOffsets.has(sent.partition)) firstOffsets.set(sent.partition, sent.baseOffset);
        }
      }
      // kafkajs' types leave out an offset's metadata; its TxnOffsetCommit request carries it.
      const position: PartitionOffset & { metadata: string } = { partition: 0, offset: '0', metadata: next };
      await transaction.sendOffsets({ consumerGroupId: this.transactionalId, topics: [{ topic, partitions: [position] }] });
      await transaction.commit();
    } catch (err) {
      await transaction.abort().catch(() => undefined);
      throw err;
    }
    this.lastTransaction = firstOffsets;
    await mirrorCheckpoint(knex, this.name, next);
  }

  /** After any failure (broker, fenced by another relay, database): start again from what Kafka committed. */
  private failed(sub: Subscription, err: unknown): void {
    if (this.sub !== sub) return;
    this.sub = null;
    this.options.log?.error({ err, relay: this.name }, 'relay batch failed; starting again from the position Kafka committed');
    const producer = this.producer;
    this.producer = null;
    this.restarting = (async () => {
      await sub.stop();
      await producer?.disconnect().catch(() => undefined);
      while (!this.stopped) {
        await sleep(this.options.retryDelayMs ?? 1000);
        if (this.stopped) return;
        try {
          await this.open();
          return;
        } catch (again) {
          this.options.log?.error({ err: again, relay: this.name }, 'relay could not start again; retrying');
        }
      }
    })();
  }

  /**
   * Resolves when everything in the log before the call is on the topic (and checkpointed) and
   * readable by read_committed consumers. A relay starting again meanwhile (after a failure) is
   * waited for.
   */
  async caughtUp(): Promise<void> {
    for (;;) {
      await this.restarting;
      const sub = this.sub;
      if (!sub) {
        if (this.stopped || !this.restarting) return;
        continue;
      }
      await sub.caughtUp();
      if (this.sub === sub) return this.untilReadable(this.lastTransaction);
    }
  }

  /**
   * A transaction's commit returns once the coordinator has logged it; its commit markers reach
   * the partitions afterwards. Until they do, the topic's last stable offset (what read_committed
   * consumers can read up to, and what `fetchTopicOffsets` answers) stops before the
   * transaction's first message in each partition it wrote: waits until it is past.
   */
  private async untilReadable(firstOffsets: Map<number, string>): Promise<void> {
    if (firstOffsets.size === 0) return;
    const admin = this.options.kafka.admin();
    await admin.connect();
    try {
      for (;;) {
        const stable = await admin.fetchTopicOffsets(this.options.topic);
        const readable = [...firstOffsets].every(([partition, first]) => BigInt(stable.find((o) => o.partition === partition)?.offset ?? '0') > BigInt(first));
        if (readable || this.stopped) return;
        await sleep(20);
      }
    } finally {
      await admin.disconnect();
    }
  }

  /** Stops reading; the batch in flight is committed (or aborted) first; then disconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.restarting;
    await this.sub?.stop();
    this.sub = null;
    await this.producer?.disconnect();
    this.producer = null;
  }
}

/** The log position the relay's last committed transaction ended at, or null before the first. */
async function committedPosition(kafka: Pick<RelayKafka, 'admin'>, topic: string, groupId: string): Promise<string | null> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
        const at = offsets?.partitions.find((p) => p.partition === 0);
        return at && at.offset !== '-1' && at.metadata ? at.metadata : null;
      } catch (err) {
        // A broker that has just started answers GROUP_LOAD_IN_PROGRESS (retriable) while its
        // group coordinator loads; asking again is safe, it only reads.
        if (attempt >= 20 || (err as { retriable?: unknown }).retriable !== true) throw err;
        await sleep(Math.min(100 * attempt, 1_000));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/** Moves the mirror row forward to `next` (never back: positions compare as strings). */
export async function mirrorCheckpoint(knex: Knex, name: string, next: string): Promise<void> {
  await knex(RELAY_CHECKPOINTS).insert({ name, position: next, updated_at: knex.fn.now() }).onConflict('name').merge(['position', 'updated_at']).where(`${RELAY_CHECKPOINTS}.position`, '<', next).orWhereNull(`${RELAY_CHECKPOINTS}.position`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates the topic when missing (partitions keyed by stream id); an existing topic is left as it is. */
export async function ensureTopic(kafka: Pick<RelayKafka, 'admin'>, topic: string, partitions: number, replicationFactor: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(topic)) {
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions, replicationFactor }] });
    }
  } finally {
    await admin.disconnect();
  }
}
