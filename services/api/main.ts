import { closeServer, runProcess } from '../processes.js';
import { openSystem } from '../system.js';
import { buildApi } from './app.js';
import { listen } from './server.js';

/**
 * The HTTP API alone (scale-out mode): `node dist/services/api/main.js`. Commands append to the
 * event store; with the Postgres store the read models are written in the same transaction.
 * No bus consumer and no scheduler loop here: the dispatcher process runs those. Several API
 * processes can run side by side (the append's expected version is the only concurrency guard).
 */
runProcess('api', async (config, log) => {
  const system = await openSystem(config, { log });
  const server = await listen(buildApi(system), config.port, log).catch(async (err: unknown) => {
    await system.close();
    throw err;
  });
  const address = server.address();
  log.info({ port: typeof address === 'object' && address ? address.port : config.port }, 'api listening');
  return {
    stop: async () => {
      // Stop taking requests and let those in flight answer; then the pools and the store.
      await closeServer(server);
      await system.close();
    },
  };
});
