import { CHECKPOINT_DEFER_MS } from '#packages/bus/consumer.js';
import { ProjectionRunner } from '#packages/read-models/runner.js';
import { ALL_PROJECTIONS, FOLLOWING_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { createEventStoreFor, openMigratedDatabase, runProcess } from '../processes.js';

/**
 * The projector alone (scale-out mode): `node dist/services/projector/main.js`. With
 * EVENT_STORE=esdb it folds the log into the read models (schema `read`), one checkpointed
 * consumer per projection, each batch and its checkpoint in one transaction: exactly once per
 * read model, in global log order. It reads the event store directly, not Kafka: the topic keeps
 * order per stream only, and the projections want the whole log's order and their checkpoint in
 * their own transaction. With EVENT_STORE=postgres the projections run inside each append's
 * transaction (read-your-writes), all but those that follow the log (analytics): those are this
 * process's.
 */
runProcess('projector', async (config, log) => {
  const projections = config.eventStore === 'postgres' ? FOLLOWING_PROJECTIONS : ALL_PROJECTIONS;
  if (projections.length === 0) {
    log.info('EVENT_STORE=postgres: every projection runs inline with each append; the projector has nothing to do');
    return null;
  }
  const db = await openMigratedDatabase(config, log, 10);
  const store = await createEventStoreFor(config, db);
  // With Postgres nothing waits on these checkpoints (read-your-writes is inline): those of batches a read model acts on none of may lag.
  const runner = new ProjectionRunner(db.knex, store, projections, log, config.eventStore === 'postgres' ? CHECKPOINT_DEFER_MS : 0);
  try {
    await runner.start();
  } catch (err) {
    await store.close();
    await db.close();
    throw err;
  }
  log.info({ projections: projections.map((p) => p.name) }, 'projecting');
  return {
    stop: async () => {
      // Each projection finishes its batch in flight, which commits with its checkpoint.
      await runner.stop();
      await store.close();
      await db.close();
    },
  };
});
