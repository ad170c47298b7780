import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../../packages/core/config.js';
import { createLogger } from '../../packages/core/logger.js';
import { buildApi } from '../api/app.js';
import { listen } from '../api/server.js';
import { openSystem } from '../system.js';

/** `make start`: every part of the service in one process, on the embedded PostgreSQL by default. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const system = await openSystem(config, { log });
  const server = await listen(buildApi(system), config.port, log);
  await system.startBackground();
  log.info({ port: (server.address() as AddressInfo).port, database: config.databaseUrl ? 'external' : system.db.ownsServer ? 'embedded' : 'embedded, run by another process' }, 'sika is serving');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close();
    server.closeIdleConnections();
    await system.close();
    log.info('stopped');
    process.exit(0);
  };
  // The database closes last, which stops an embedded server this process started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
}

main().catch((err: unknown) => {
  process.stderr.write(`sika failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
