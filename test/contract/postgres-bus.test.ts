import t from 'tap';
import { CheckpointedConsumer } from '../../packages/bus/consumer.js';
import { postgresStore } from '../support/db.js';
import { busContract } from './bus-contract.js';

/** The embedded bus (BUS=postgres): checkpointed consumers tailing the Postgres event log. */
busContract(t, async (t) => {
  const { knex, store } = await postgresStore(t, { poolSize: 30 });
  return {
    store,
    consumer: (spec) => new CheckpointedConsumer(knex, store, spec),
    restartFeed: async () => undefined, // consumers read the log itself: nothing between them
  };
});
