import { randomUUID } from 'node:crypto';
import t from '#tap';
import { EsdbEventStore } from '#packages/eventstore/esdb/store.js';
import { eventStoreContract } from './eventstore-contract.js';

/**
 * The event store contract against a real EventStoreDB. Needs a server: `make infra-test`, or
 * `ESDB_URL=esdb://localhost:2113?tls=false make test` with infra/docker-compose.yml running.
 * Every test gets a store scoped to a fresh stream prefix: the contract's "empty log" on a shared
 * server ($all holds every earlier run's events).
 */
const url = process.env.ESDB_URL;
if (!url) {
  t.plan(0, 'ESDB_URL not set: EventStoreDB contract skipped; run `make infra-test` or `ESDB_URL=esdb://localhost:2113?tls=false make test`');
} else {
  eventStoreContract(t, async (t) => {
    const store = EsdbEventStore.connect(url, { streamPrefix: `ct${randomUUID().replace(/-/g, '')}-`, retryDelayMs: 100 });
    t.teardown(() => store.close());
    return store;
  });
}
