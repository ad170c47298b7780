import { chainSealer } from '#packages/eventstore/audit-chain.js';
import { createConsumersFor, runProcess } from '../processes.js';
import { openSystem } from '../system.js';

/**
 * The webhook dispatcher alone (scale-out mode): `node dist/services/dispatcher/main.js`. Reads the
 * bus (BUS=postgres: the event log from its checkpoint; BUS=kafka: the topic in consumer group
 * `sika.<consumer>`), records webhook events and deliveries, notices invoice payments, and runs the scheduler's
 * timers: delivery attempts and retries, sandbox operator callbacks, payout delay checks,
 * settlement. It also seals the log's global hash chain (docs/audit.md), reading the event store
 * itself in commit order whatever the bus. Several dispatchers can run: bus batches and the seal
 * are checkpointed (or partitioned), jobs are claimed with SKIP LOCKED.
 */
runProcess('dispatcher', async (config, log) => {
  const system = await openSystem(config, { log });
  const consumers = await createConsumersFor(config, { knex: system.knex, store: system.store, log }, system.busConsumers, [{ spec: chainSealer() }]);
  try {
    for (const consumer of consumers) await consumer.start();
  } catch (err) {
    await system.close();
    throw err;
  }
  system.scheduler.start();
  return {
    stop: async () => {
      // No new batches or jobs; the batch in flight commits with its checkpoint (or offset); running jobs finish.
      // Each step is logged with its time, so a shutdown that overruns says where.
      // Side by side: a Kafka consumer's stop waits for its fetch in flight (up to its 5 s long poll),
      // and seven of them one after another overran the 30 s shutdown.
      const started = Date.now();
      await Promise.all(
        consumers.map(async (consumer, i) => {
          await consumer.stop();
          log.info({ consumer: i, ms: Date.now() - started }, 'consumer stopped');
        }),
      );
      await system.close();
      log.info({ ms: Date.now() - started }, 'system closed');
    },
  };
});
