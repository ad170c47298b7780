import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import t from '#tap';
import { KafkaBusConsumer } from '#packages/bus/kafka/consumer.js';
import { KafkaRelay } from '#packages/bus/kafka/relay.js';
import { postgresStore } from '../support/db.js';
import { busContract } from './bus-contract.js';

/**
 * The Kafka bus (BUS=kafka): the relay publishes the Postgres event log to a fresh topic per test,
 * consumers read it in consumer groups. Needs a broker: `make test-kafka` starts one
 * (infra/kafka/broker.sh); or set KAFKA_BROKERS to one of your own.
 */
const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
if (brokers.length === 0) {
  t.plan(0, 'KAFKA_BROKERS not set: Kafka bus contract skipped here; `make test-kafka` runs it on a real broker');
} else {
  const kafka = new Kafka({ clientId: 'sika-contract', brokers, logLevel: logLevel.WARN });
  busContract(t, async (t) => {
    const { knex, store } = await postgresStore(t, { poolSize: 30 });
    const topic = `sika-contract-${randomUUID()}`;
    const newRelay = () => new KafkaRelay({ kafka, knex, store, topic, partitions: 3, batchSize: 16 });
    let relay = newRelay();
    await relay.start();
    t.teardown(async () => {
      await relay.stop();
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    });
    return {
      store,
      consumer: (spec) => {
        const consumer = new KafkaBusConsumer({ kafka, knex, topic, spec, retryDelayMs: 100 });
        return {
          start: () => consumer.start(),
          // Everything appended before the call: first on the topic, then handled by the group.
          caughtUp: async () => {
            await relay.caughtUp();
            await consumer.caughtUp();
          },
          stop: () => consumer.stop(),
        };
      },
      restartFeed: async () => {
        await relay.stop();
        relay = newRelay();
        await relay.start();
      },
    };
  });
}
