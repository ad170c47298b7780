import type { Admin, Producer, ProducerConfig } from 'kafkajs';
import type { Knex } from 'knex';
import type { Logger } from '../../core/logger.js';
import type { EventStore, RecordedEvent, Subscription } from '../../eventstore/port.js';
import { CheckpointMoved, readCheckpoint } from '../consumer.js';
import { chunkMessages, encodeEvent } from './codec.js';

export const RELAY_CHECKPOINTS = 'bus_checkpoints';
/** Partitions of the topic when the relay or a consumer creates it (a stream stays on one partition). */
export const DEFAULT_TOPIC_PARTITIONS = 6;

/** What the relay uses of a kafkajs `Kafka` (which is one; tests pass a recorder). */
export interface RelayKafka {
  producer(config?: ProducerConfig): Pick<Producer, 'connect' | 'send' | 'disconnect'>;
  admin(): Pick<Admin, 'connect' | 'listTopics' | 'createTopics' | 'disconnect'>;
}

export interface KafkaRelayOptions {
  kafka: RelayKafka;
  knex: Knex;
  store: EventStore;
  topic: string;
  /** Checkpoint row name in bus_checkpoints (default `relay:<topic>`). */
  name?: string;
  /** Events read from the log per batch (500). */
  batchSize?: number;
  /** Bytes of keys and values per send, below the broker's message.max.bytes (900 000). */
  maxRequestBytes?: number;
  /** Used when the topic does not exist yet: partitions (6) and replication factor (1, one broker). */
  partitions?: number;
  replicationFactor?: number;
  log?: Logger;
}

/**
 * Publishes the event log to a Kafka topic from a checkpoint: key = stream id (per-aggregate order
 * through the partitioner), headers event-id and event-type, value = the recorded event as JSON.
 * The producer is idempotent (acks from all in-sync replicas, one request in flight, so retries
 * neither duplicate nor reorder within a session). The checkpoint (table bus_checkpoints, the row
 * format of packages/bus/consumer.ts) moves only after Kafka acknowledged the batch, with a
 * compare-and-set: a crash between the two re-publishes the batch (at-least-once, consumers dedupe
 * on event id), never skips it; a second relay that moved the row makes this one resume from it.
 * No transaction is held open while sending (that would hold back the Postgres store's xmin fence).
 */
export class KafkaRelay {
  private readonly name: string;
  private producer: Pick<Producer, 'send' | 'disconnect'> | null = null;
  private sub: Subscription | null = null;
  private stopped = false;
  private restarting: Promise<void> | null = null;

  constructor(private readonly options: KafkaRelayOptions) {
    this.name = options.name ?? `relay:${options.topic}`;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await ensureTopic(this.options.kafka, this.options.topic, this.options.partitions ?? DEFAULT_TOPIC_PARTITIONS, this.options.replicationFactor ?? 1);
    const producer = this.options.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    this.producer = producer;
    await this.subscribe();
  }

  private async subscribe(): Promise<void> {
    let checkpoint = await readCheckpoint(this.options.knex, RELAY_CHECKPOINTS, this.name);
    if (this.stopped) return;
    this.options.log?.info({ relay: this.name, checkpoint }, 'relay resuming');
    let moved = false;
    const sub: Subscription = this.options.store.subscribe({
      after: checkpoint,
      batchSize: this.options.batchSize ?? 500,
      handle: async (events) => {
        await this.publish(events);
        const next = events[events.length - 1]!.position;
        await storeCheckpoint(this.options.knex, this.name, checkpoint, next);
        checkpoint = next;
      },
      onError: (err) => {
        if (err instanceof CheckpointMoved) {
          if (!moved) {
            moved = true;
            this.options.log?.warn({ relay: this.name }, 'relay checkpoint moved by someone else; resuming from it');
            setImmediate(() => void this.restart(sub));
          }
          return;
        }
        this.options.log?.error({ err, relay: this.name }, 'relay batch failed; retrying');
      },
    });
    this.sub = sub;
  }

  private restart(old: Subscription): Promise<void> {
    if (this.sub !== old) return Promise.resolve();
    this.sub = null;
    this.restarting = (async () => {
      await old.stop();
      if (!this.stopped) await this.subscribe();
    })();
    return this.restarting;
  }

  private async publish(events: readonly RecordedEvent[]): Promise<void> {
    const producer = this.producer;
    if (!producer) throw new Error('relay is not started');
    for (const messages of chunkMessages(events.map(encodeEvent), this.options.maxRequestBytes ?? 900_000)) {
      await producer.send({ topic: this.options.topic, acks: -1, messages });
    }
  }

  /**
   * Resolves when everything in the log before the call is on the topic (and checkpointed). A
   * subscription replaced while waiting (another relay moved the checkpoint) answers early; the
   * wait goes on with the one that replaced it.
   */
  async caughtUp(): Promise<void> {
    for (;;) {
      await this.restarting;
      const sub = this.sub;
      if (!sub) return;
      await sub.caughtUp();
      if (this.sub === sub) return;
    }
  }

  /** Stops reading; the batch in flight is sent and checkpointed first; then disconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.restarting;
    await this.sub?.stop();
    this.sub = null;
    await this.producer?.disconnect();
    this.producer = null;
  }
}

/**
 * Moves the checkpoint row from `expected` to `next`, or throws CheckpointMoved if it is not at
 * `expected` (another relay, a reset). A short transaction after the send, not around it.
 */
export async function storeCheckpoint(knex: Knex, name: string, expected: string | null, next: string): Promise<void> {
  await knex.transaction(async (trx) => {
    const row = await trx(RELAY_CHECKPOINTS).where({ name }).forUpdate().first<{ position: string | null } | undefined>();
    if (!row) {
      if (expected !== null) throw new CheckpointMoved();
      const inserted = await trx(RELAY_CHECKPOINTS).insert({ name, position: next, updated_at: trx.fn.now() }).onConflict('name').ignore().returning('name');
      if (inserted.length === 0) throw new CheckpointMoved();
      return;
    }
    if (row.position !== expected) throw new CheckpointMoved();
    await trx(RELAY_CHECKPOINTS).where({ name }).update({ position: next, updated_at: trx.fn.now() });
  });
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
