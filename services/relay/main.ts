import { createEventStoreFor, createRelayFor, openMigratedDatabase, runProcess } from '../processes.js';

/**
 * The relay alone (scale-out mode): `node dist/services/relay/main.js`. With BUS=kafka it publishes
 * the event log (Postgres or EventStoreDB) to the topic KAFKA_TOPIC (`sika.events`) from its checkpoint in
 * bus_checkpoints (row `relay:<topic>`), moving the checkpoint only after Kafka acknowledged
 * each batch: at-least-once, resumes after a crash without loss. Run one (a second one is safe,
 * it only duplicates work). With BUS=postgres consumers read the log itself: nothing to relay.
 */
runProcess('relay', async (config, log) => {
  if (config.bus !== 'kafka') {
    log.info('BUS=postgres: bus consumers tail the event log themselves; the relay has nothing to do');
    return null;
  }
  const db = await openMigratedDatabase(config, log, 10);
  // The relay only reads the log: no inline projections on its store.
  const store = await createEventStoreFor(config, db);
  const relay = await createRelayFor(config, { knex: db.knex, store, log });
  try {
    if (!relay) throw new Error('BUS=kafka but no relay was built');
    await relay.start();
  } catch (err) {
    await store.close();
    await db.close();
    throw err;
  }
  log.info({ topic: config.kafkaTopic }, 'relaying');
  return {
    stop: async () => {
      // The batch in flight is sent and checkpointed; then the producer disconnects.
      await relay.stop();
      await store.close();
      await db.close();
    },
  };
});
