import { createBusConsumerFor, runProcess } from '../processes.js';
import { openSystem } from '../system.js';

/**
 * The webhook dispatcher alone (scale-out mode): `node dist/services/dispatcher/main.js`. Reads the
 * bus (BUS=postgres: the event log from its checkpoint; BUS=kafka: the topic in consumer group
 * `sika.<consumer>`), records webhook events and deliveries, notices invoice payments, and runs the scheduler's
 * timers: delivery attempts and retries, sandbox operator callbacks, payout delay checks,
 * settlement. Several dispatchers can run: bus batches are checkpointed (or partitioned), jobs are
 * claimed with SKIP LOCKED.
 */
runProcess('dispatcher', async (config, log) => {
  const system = await openSystem(config, { log });
  const consumers = system.busConsumers.map((spec) => createBusConsumerFor(config, { knex: system.knex, store: system.store, log }, spec));
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
      for (const consumer of consumers) await consumer.stop();
      await system.close();
    },
  };
});
