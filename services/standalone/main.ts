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
  log.info({ port: (server.address() as AddressInfo).port, database: system.db.ownsServer ? 'embedded' : 'external' }, 'sika is serving');

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
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`sika failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
