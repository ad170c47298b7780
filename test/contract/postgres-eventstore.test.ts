import t from 'tap';
import { createKnex } from '../../packages/core/database.js';
import { PostgresEventStore } from '../../packages/eventstore/postgres/store.js';
import { migrate } from '../../infra/migrations.js';
import { freshDatabase } from '../support/db.js';
import { eventStoreContract } from './eventstore-contract.js';

eventStoreContract(t, async (t) => {
  const url = await freshDatabase(t);
  const knex = createKnex(url, 60);
  await migrate(knex);
  const store = new PostgresEventStore(knex, { listenUrl: url, pollIntervalMs: 50 });
  t.teardown(async () => {
    await store.close();
    await knex.destroy();
  });
  return store;
});
