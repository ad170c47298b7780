import { ConfigError } from '#packages/core/config-parsing.js';
import type { Environment } from '#packages/core/owner.js';
import { LATER_STATUS_CHECKS_MS, RAIL_ENVIRONMENTS, type RailModule } from '../rail-module.js';
import { hub2Config, type Hub2Config } from './config.js';
import { Hub2Connector } from './connector.js';
import { Hub2Inbound } from './inbound.js';
import { providerFor } from './providers.js';

/**
 * Hub2, the mobile money rail of Mali, Togo and the operators pawaPay does not carry
 * (docs/connectors.md, "Hub2"): a connector per account. HUB2_PAYOUT_OPERATORS is checked against
 * the operators Hub2 pays out to here, where its table is known.
 */
export const hub2Rail: RailModule<'hub2', Hub2Config> = {
  name: 'hub2',
  settings: hub2Config,
  open({ hub2: settings }, { clock, log, desk, kept }) {
    for (const entry of settings.payoutOperators ?? []) {
      const [country, operator] = entry.split(':') as [string, string];
      if (!providerFor(country, operator)?.paysOut) throw new ConfigError('HUB2_PAYOUT_OPERATORS', `Hub2 does not pay out to ${entry}`);
    }
    const connectors: Partial<Record<Environment, Hub2Connector>> = {};
    for (const environment of RAIL_ENVIRONMENTS) {
      const account = settings[environment];
      if (!account) continue;
      connectors[environment] = new Hub2Connector({
        baseUrl: account.apiUrl,
        apiKey: account.apiKey,
        merchantId: account.merchantId,
        environment,
        clock,
        book: kept.records(environment),
        webhookSecret: settings.webhookSecret,
        statusChecks: [settings.statusCheckAfterMs, ...LATER_STATUS_CHECKS_MS],
        payoutOperators: settings.payoutOperators,
        log: log.child({ connector: 'hub2', environment }),
      });
    }
    return Promise.resolve({ connectors, inbound: new Hub2Inbound(connectors, desk, log.child({ connector: 'hub2' })) });
  },
};
