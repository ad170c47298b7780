import t from '#tap';
import { postgresStore } from '../support/db.js';
import { eventStoreContract } from './eventstore-contract.js';

eventStoreContract(t, async (t) => {
  const { store } = await postgresStore(t, { poolSize: 60 });
  return store;
});
