import t from '#tap';
import { freePort } from '#packages/core/embedded-postgres.js';
import { startProcess } from '../support/child-process.js';
import { freshDatabase } from '../support/db.js';

/**
 * Each process of the scale-out mode starts on its own from dist/, says why when it has nothing to
 * do, refuses a configuration it cannot serve, and stops cleanly (exit 0) on SIGTERM, also while
 * its servers are unreachable. EventStoreDB and Kafka do not run here: their addresses point at
 * closed ports, which is exactly the "server down" case.
 */
const start = (name: string, env: Record<string, string>) => startProcess(`services/${name}/main.js`, env);

t.test('api: serves, then on SIGTERM finishes and exits 0', async (t) => {
  const url = await freshDatabase(t);
  const port = await freePort();
  const api = start('api', { DATABASE_URL: url, PORT: String(port) });
  t.teardown(() => void api.child.kill('SIGKILL'));
  await api.waitFor(/api listening/);
  const res = await fetch(`http://127.0.0.1:${port}/openapi.json`);
  t.equal(res.status, 200, 'answers requests');
  await res.arrayBuffer();
  api.child.kill('SIGTERM');
  t.equal(await api.exit, 0, 'clean exit');
  t.match(api.output(), /shutting down/);
  t.match(api.output(), /stopped/);
});

t.test('dispatcher (embedded bus): runs its consumer and the scheduler, stops on SIGTERM', async (t) => {
  const url = await freshDatabase(t);
  const dispatcher = start('dispatcher', { DATABASE_URL: url });
  t.teardown(() => void dispatcher.child.kill('SIGKILL'));
  await dispatcher.waitFor(/dispatcher running/);
  dispatcher.child.kill('SIGTERM');
  t.equal(await dispatcher.exit, 0);
  t.match(dispatcher.output(), /stopped/);
});

t.test('with the Postgres store the projector runs the projections that follow the log; the relay says why it has nothing to do', async (t) => {
  const url = await freshDatabase(t);
  const projector = start('projector', { DATABASE_URL: url, EVENT_STORE: 'postgres' });
  await projector.waitFor(/projecting/);
  t.match(projector.output(), /"projections":\["intelligence_payments","intelligence_decisions"\]/);
  projector.child.kill('SIGTERM');
  t.equal(await projector.exit, 0);
  const relay = start('relay', { DATABASE_URL: url, BUS: 'postgres' });
  t.equal(await relay.exit, 0);
  t.match(relay.output(), /nothing to do/);
});

t.test('projector on EventStoreDB: starts, keeps retrying while the server is down, stops cleanly on SIGTERM', async (t) => {
  const url = await freshDatabase(t);
  const closed = await freePort();
  const projector = start('projector', { DATABASE_URL: url, EVENT_STORE: 'esdb', ESDB_URL: `esdb://127.0.0.1:${closed}?tls=false` });
  t.teardown(() => void projector.child.kill('SIGKILL'));
  await projector.waitFor(/projecting/);
  await projector.waitFor(/batch failed; retrying|unavailable|UNAVAILABLE/i);
  projector.child.kill('SIGTERM');
  t.equal(await projector.exit, 0);
});

t.test('a configuration a process cannot serve is refused with the variable named', async (t) => {
  const url = await freshDatabase(t);
  const api = start('api', { DATABASE_URL: url, EVENT_STORE: 'esdb' });
  t.equal(await api.exit, 2);
  t.match(api.output(), /Configuration error: ESDB_URL: is required when EVENT_STORE=esdb/);
  const relay = start('relay', { DATABASE_URL: url, BUS: 'kafka' });
  t.equal(await relay.exit, 2);
  t.match(relay.output(), /Configuration error: KAFKA_BROKERS: is required when BUS=kafka/);
});

t.test('relay with an unreachable Kafka fails to start with a message (exit 1)', async (t) => {
  const url = await freshDatabase(t);
  const closed = await freePort();
  const relay = start('relay', { DATABASE_URL: url, BUS: 'kafka', KAFKA_BROKERS: `127.0.0.1:${closed}` });
  t.teardown(() => void relay.child.kill('SIGKILL'));
  t.equal(await relay.exit, 1);
  t.match(relay.output(), /relay failed to start/);
});
