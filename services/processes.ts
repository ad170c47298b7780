/**
 * What the processes of the service are made of, chosen from the configuration: the event store
 * (EVENT_STORE=postgres|esdb), the bus (BUS=postgres|kafka), the relay, read-your-writes for
 * stores without inline projections, and the start/stop discipline every `main.ts` shares.
 *
 * This file does not import services/system.ts, so the composition root can import it. EventStoreDB's
 * and Kafka's clients are imported only when the configuration names them: loading them takes
 * about a second, which every process with the defaults (the tests', the CLI's) would pay for nothing.
 */
import type http from 'node:http';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { ConsumerGroup, type ConsumerSpec, type GroupMember } from '#packages/bus/consumer.js';
import type { KafkaRelay } from '#packages/bus/kafka/relay.js';
import type { BusConsumer } from '#packages/bus/port.js';
import { ConfigError, type Config } from '#packages/core/config.js';
import { readConfiguration, recordServiceConfiguration, type ReadConfiguration } from '#packages/core/service-configuration.js';
import { loadServiceConfig, type ServiceConfig } from './config.js';
import { openDatabase, type Database } from '#packages/core/database.js';
import { createLogger, type Logger } from '#packages/core/logger.js';
import type { AppendResult, EventStore, ExpectedVersion, NewEvent, RecordedEvent, SubscribeOptions, Subscription } from '#packages/eventstore/port.js';
import { PostgresEventStore, type InlineHandler } from '#packages/eventstore/postgres/store.js';
import { migrate } from '../infra/migrations.js';

/**
 * The event store of the configuration. Postgres: inline projections (if given) run in the
 * append's transaction, and other processes' writes wake subscribers through the database's LISTEN connection.
 * EventStoreDB: projections cannot run inline; pair the store with a projector (ProjectionRunner)
 * and, for writers, `readYourWrites`.
 */
export async function createEventStoreFor(config: Config, db: Pick<Database, 'knex' | 'notifications'>, options: { inline?: InlineHandler } = {}): Promise<EventStore> {
  if (config.eventStore === 'esdb') {
    if (!config.esdbUrl) throw new ConfigError('ESDB_URL', 'is required when EVENT_STORE=esdb');
    const { EsdbEventStore } = await import('#packages/eventstore/esdb/store.js');
    return EsdbEventStore.connect(config.esdbUrl);
  }
  return new PostgresEventStore(db.knex, { ...(options.inline ? { inline: options.inline } : {}), notifications: db.notifications });
}

/** A kafkajs client for KAFKA_BROKERS; its own logs go through ours (warnings and errors only). */
export async function createKafkaFor(config: Config, clientId: string, log?: Logger): Promise<Kafka> {
  if (config.kafkaBrokers.length === 0) throw new ConfigError('KAFKA_BROKERS', 'is required when BUS=kafka');
  const { Kafka, logLevel: kafkaLogLevel } = await import('kafkajs');
  return new Kafka({
    clientId,
    brokers: config.kafkaBrokers,
    logLevel: kafkaLogLevel.WARN,
    logCreator: () => (entry) => {
      const { message, ...rest } = entry.log;
      const fields = { kafka: entry.namespace, ...rest };
      if (entry.level <= kafkaLogLevel.ERROR) log?.error(fields, message);
      else log?.warn(fields, message);
    },
  });
}

export interface BusDeps {
  knex: Knex;
  store: EventStore;
  log?: Logger;
  /** Needed with BUS=kafka; created from the config when absent. */
  kafka?: Kafka | null;
}

/**
 * The consumers of a process: `specs` on the bus of the configuration, and `fromTheLog` (the audit
 * sealer, the projector's read models), which read the event store itself whatever the bus.
 * BUS=postgres: all of them in one ConsumerGroup over the event store (one read of the log, one
 * transaction per batch for those that act on it, global order, each batch with its checkpoints).
 * BUS=kafka: each spec a KafkaBusConsumer in the consumer group `<KAFKA_TOPIC>.<spec.name>`
 * (offsets committed after the batch's transaction; per-stream order; at-least-once, handlers
 * idempotent on event id), and `fromTheLog` one ConsumerGroup.
 */
export async function createConsumersFor(config: Config, deps: BusDeps, specs: readonly ConsumerSpec[], fromTheLog: readonly GroupMember[] = []): Promise<BusConsumer[]> {
  const group = (members: readonly GroupMember[]) => (members.length > 0 ? [new ConsumerGroup(deps.knex, deps.store, members, deps.log)] : []);
  if (config.bus !== 'kafka') return group([...fromTheLog, ...specs.map((spec) => ({ spec }))]);
  const { KafkaBusConsumer } = await import('#packages/bus/kafka/consumer.js');
  const kafkaConsumers: BusConsumer[] = [];
  for (const spec of specs) {
    const kafka = deps.kafka ?? (await createKafkaFor(config, `sika-${spec.name}`, deps.log));
    kafkaConsumers.push(new KafkaBusConsumer({ kafka, knex: deps.knex, topic: config.kafkaTopic, spec, ...(deps.log ? { log: deps.log } : {}) }));
  }
  return [...group(fromTheLog), ...kafkaConsumers];
}

/** The relay that publishes the log to Kafka, or null with BUS=postgres (consumers read the log itself). */
export async function createRelayFor(config: Config, deps: BusDeps): Promise<KafkaRelay | null> {
  if (config.bus !== 'kafka') return null;
  const kafka = deps.kafka ?? (await createKafkaFor(config, 'sika-relay', deps.log));
  const { KafkaRelay } = await import('#packages/bus/kafka/relay.js');
  return new KafkaRelay({ kafka, knex: deps.knex, store: deps.store, topic: config.kafkaTopic, ...(deps.log ? { log: deps.log } : {}) });
}

/** The database (DATABASE_URL, or the embedded server of DATA_DIR), migrated: what every process opens first. */
export async function openMigratedDatabase(config: Config, log: Logger, poolMax?: number): Promise<Database> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax, log });
  try {
    const applied = await migrate(db.knex);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

const PROJECTION_CHECKPOINTS = 'read.projection_checkpoints';

/**
 * Waits until every named projection's checkpoint (read.projection_checkpoints) is at or past
 * `position`. Resolves false after `timeoutMs` (the projector is down or far behind): the write
 * has happened, so the caller answers anyway rather than failing it.
 */
export async function waitForProjections(knex: Knex, names: readonly string[], position: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let pause = 5;
  for (;;) {
    const rows = await knex(PROJECTION_CHECKPOINTS)
      .whereIn('name', [...names])
      .select<{ name: string; position: string | null }[]>('name', 'position');
    const done = names.every((n) => {
      const at = rows.find((r) => r.name === n)?.position;
      return at !== null && at !== undefined && at >= position;
    });
    if (done) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 50);
  }
}

/**
 * Read-your-writes over a store whose projections run asynchronously (EventStoreDB): an append
 * returns once the projector has applied it, so the GET that follows a POST sees what it wrote.
 * After `timeoutMs` (default 5 s) it returns anyway and logs a warning.
 */
export class ReadYourWritesStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly knex: Knex,
    private readonly projections: readonly string[],
    private readonly options: { timeoutMs?: number; log?: Logger } = {},
  ) {}

  async append(streamId: string, events: NewEvent[], options: { expectedVersion: ExpectedVersion }): Promise<AppendResult> {
    const result = await this.inner.append(streamId, events, options);
    if (this.projections.length > 0) {
      const projected = await waitForProjections(this.knex, this.projections, result.position, this.options.timeoutMs ?? 5000);
      if (!projected) this.options.log?.warn({ streamId, position: result.position }, 'projections behind: answering before the read models caught up');
    }
    return result;
  }

  readStream(streamId: string, options?: { fromVersion?: number }): Promise<RecordedEvent[]> {
    return this.inner.readStream(streamId, options);
  }

  streamVersion(streamId: string): Promise<number | 'no_stream'> {
    return this.inner.streamVersion(streamId);
  }

  readAll(after: string | null, limit: number): Promise<RecordedEvent[]> {
    return this.inner.readAll(after, limit);
  }

  headPosition(): Promise<string | null> {
    return this.inner.headPosition();
  }

  subscribe(options: SubscribeOptions): Subscription {
    return this.inner.subscribe(options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Stops accepting connections, lets requests in flight finish (up to `graceMs`), then closes what is left. */
export function closeServer(server: http.Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** A started process: `stop` stops taking work, finishes what is in flight, commits checkpoints, closes connections. */
export interface Running {
  stop(): Promise<void>;
}

export interface RunOptions {
  /** After a stop signal, exit with failure if stopping takes longer than this (30 s). */
  shutdownTimeoutMs?: number;
}

/**
 * The `main` of every process: parses the configuration (a bad value exits 2 naming the
 * variable), starts, and on SIGTERM or SIGINT stops gracefully and exits 0; a second signal or a
 * stop that outlives the timeout exits 1. `start` resolving null means there is nothing for this
 * process to do in this configuration (it exits 0 after saying why).
 */
export function runProcess(name: string, start: (config: ServiceConfig, log: Logger) => Promise<Running | null>, options: RunOptions = {}): void {
  let read: ReadConfiguration<ServiceConfig>;
  try {
    read = readConfiguration(loadServiceConfig);
  } catch (err) {
    process.stderr.write(`Configuration error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const { config } = read;
  const log = createLogger(config.logLevel).child({ process: name });
  let stopping = false;

  const started: Promise<Running | null> = start(config, log).then(
    (running) => {
      if (running === null) {
        process.exit(0);
      }
      // What `bin/sika` on this machine then acts with (docs/operator.md, "The command line").
      recordServiceConfiguration(read, new Date());
      log.info({ event_store: config.eventStore, bus: config.bus }, `${name} running`);
      return running;
    },
    (err: unknown) => {
      if (err instanceof ConfigError) {
        process.stderr.write(`Configuration error: ${err.message}\n`);
        process.exit(2);
      }
      log.error({ err }, `${name} failed to start`);
      process.stderr.write(`sika ${name} failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );

  const stop = async (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting without finishing');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, options.shutdownTimeoutMs ?? 30_000);
    timer.unref();
    try {
      const running = await started;
      await running?.stop();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  // `running.stop()` closes the database last, which stops an embedded server this process started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
}
