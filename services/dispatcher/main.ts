import { createBusConsumerFor, runProcess } from '../processes.js';
import { openSystem } from '../system.js';

/**
 * The webhook dispatcher alone (scale-out mode): `node dist/services/dispatcher/main.js`. Reads the
 * bus (BUS=postgres: the event log from its checkpoint; BUS=kafka: the topic in consumer group
 * `sika.webhook-dispatcher`), records webhook events and deliveries, and runs the scheduler's
 * timers: delivery attempts and retries, sandbox operator callbacks, payout delay checks,
 * settlement. Several dispatchers can run: bus batches are checkpointed (or partitioned), jobs are
 * claimed with SKIP LOCKED.
 */
runProcess('dispatcher', async (config, log) => {
  const system = await openSystem(config, { log });
  const consumer = createBusConsumerFor(config, { knex: system.knex, store: system.store, log }, system.webhooks.consumer());
  try {
    await consumer.start();
  } catch (err) {
    await system.close();
    throw err;
  }
  system.scheduler.start();
  return {
    stop: async () => {
      // No new batches or jobs; the batch in flight commits with its checkpoint (or offset); running jobs finish.
      await consumer.stop();
      await system.close();
    },
  };
});
