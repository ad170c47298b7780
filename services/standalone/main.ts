import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '#packages/core/config.js';
import { readConfiguration, recordServiceConfiguration } from '#packages/core/service-configuration.js';
import { loadServiceConfig, type ServiceConfig } from '../config.js';
import { createLogger, type Logger } from '#packages/core/logger.js';
import { buildApi } from '../api/app.js';
import { listen } from '../api/server.js';
import { closeServer } from '../processes.js';
import { openSystem } from '../system.js';
import { startWorkers } from './workers.js';

/**
 * `make start`: every part of the service, on the embedded PostgreSQL by default. With one API
 * worker (API_WORKERS=1) this process serves HTTP and runs the background work; with more, it
 * runs the background work and its workers (node:cluster, one port) serve HTTP, so every core
 * answers requests (docs/performance.md).
 */
async function main(): Promise<void> {
  let read;
  try {
    read = readConfiguration(loadServiceConfig);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const { config } = read;
  const log = createLogger(config.logLevel);
  if (cluster.isWorker) return serveAsWorker(config, log.child({ worker: cluster.worker!.id }));

  const system = await openSystem(config, { log });
  recordServiceConfiguration(read, system.clock.now());
  const single = config.apiWorkers === 1;
  const server = single ? await listen(buildApi(system), config.port, log) : null;
  await system.startBackground();
  const workers = single ? null : await startWorkers(config.apiWorkers, log);
  const port = server ? (server.address() as AddressInfo).port : workers!.port;
  const database = config.databaseUrl ? 'external' : system.db.ownsServer ? 'embedded' : 'embedded, run by another process';
  const addresses = { dashboard: `${config.publicUrl}/dashboard/`, console: `${config.publicUrl}/console/`, api: `${config.publicUrl}/api/v1/` };
  log.info({ port, database, api_workers: config.apiWorkers, ...addresses }, 'sika is serving');
  // For the person who ran `make start`, beside the JSON log (stdout): where to go now.
  process.stderr.write(`Sika is serving: the dashboard at ${addresses.dashboard}, the operator console at ${addresses.console}, the API at ${addresses.api} (reference: ${config.publicUrl}/docs/, ${config.publicUrl}/openapi.json)\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    if (server) {
      server.close();
      server.closeIdleConnections();
    }
    await workers?.stop();
    await system.close();
    log.info('stopped');
    process.exit(0);
  };
  // The database closes last, which stops an embedded server this process started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
}

/**
 * A worker: the API on the primary's database (the embedded server it runs, or DATABASE_URL),
 * without background work. It stops with the primary: on SIGTERM after the requests in flight,
 * and at once when the primary is gone (its IPC channel closes).
 */
async function serveAsWorker(config: ServiceConfig, log: Logger): Promise<void> {
  const system = await openSystem(config, { log });
  const server = await listen(buildApi(system), config.port, log);
  process.send!({ listening: (server.address() as AddressInfo).port });
  process.on('disconnect', () => process.exit(1));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await closeServer(server);
    await system.close();
    process.exit(0);
  };
  // Ctrl-C reaches every process of the group: the primary decides when workers stop.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`sika failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
