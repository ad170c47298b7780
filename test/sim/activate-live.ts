/**
 * The simulation's live merchant: opens its live environment through the domain, as the tests'
 * fixture does (test/support/system.ts `activateLive`), with the service's configuration. The
 * service itself opens live only by approving an activation application (docs/merchants.md,
 * "Going live"); the simulation is about money under faults, not about the review.
 */
import { loadServiceConfig } from '../../services/config.js';
import { createLogger } from '#packages/core/logger.js';
import { setLiveActivation } from '#packages/families/merchants/merchant/commands.js';
import { openSystem } from '../../services/system.js';

const merchantId = process.argv[2];
if (!merchantId) {
  process.stderr.write('usage: activate-live ACCOUNT_ID\n');
  process.exit(2);
}
const system = await openSystem(loadServiceConfig(), { log: createLogger('warn', process.stderr), poolMax: 2 });
try {
  const live = await setLiveActivation(system.store, system.clock, merchantId, true, { actor: 'sim' });
  process.stdout.write(`live for ${merchantId}: ${live.status}\n`);
} finally {
  await system.close();
}
