import t from 'tap';
import { createKnex } from '../../packages/core/database.js';
import { CheckpointedConsumer } from '../../packages/bus/consumer.js';
import { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
import { migrate } from '../../infra/migrations.js';
import { freshDatabase } from '../support/db.js';
import { busContract } from './bus-contract.js';

/** The embedded bus (BUS=postgres): checkpointed consumers tailing the Postgres event log. */
busContract(t, async (t) => {
  const url = await freshDatabase(t);
  const knex = createKnex(url, 30);
  await migrate(knex);
  const store = new PostgresEventStore(knex, { listenUrl: url, pollIntervalMs: 50 });
  t.teardown(async () => {
    await store.close();
    await knex.destroy();
  });
  return {
    store,
    consumer: (spec) => new CheckpointedConsumer(knex, store, spec),
    restartFeed: async () => undefined, // consumers read the log itself: nothing between them
  };
});
