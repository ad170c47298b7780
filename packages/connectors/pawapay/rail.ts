import type { Environment } from '#packages/core/owner.js';
import { LATER_STATUS_CHECKS_MS, RAIL_ENVIRONMENTS, type RailModule } from '../rail-module.js';
import { pawapayConfig, type PawapayConfig } from './config.js';
import { PawapayConnector } from './connector.js';
import { PawapayInbound } from './inbound.js';

/**
 * pawaPay, the mobile money rail (docs/connectors.md, "pawaPay"): a connector per account, each
 * loading pawaPay's active configuration at start (one that cannot serves nothing until it can).
 */
export const pawapayRail: RailModule<'pawapay', PawapayConfig> = {
  name: 'pawapay',
  settings: pawapayConfig,
  async open({ pawapay: settings }, { clock, log, publicUrl, minorUnits, desk }) {
    const connectors: Partial<Record<Environment, PawapayConnector>> = {};
    for (const environment of RAIL_ENVIRONMENTS) {
      const account = settings[environment];
      if (!account) continue;
      const connector = new PawapayConnector({
        baseUrl: account.apiUrl,
        apiToken: account.apiToken,
        clock,
        log: log.child({ connector: 'pawapay', environment }),
        minorUnits,
        publicUrl,
        ...(settings.signing ? { requestSigning: { key: settings.signing } } : {}),
        statusChecks: [settings.statusCheckAfterMs, ...LATER_STATUS_CHECKS_MS],
        acceptUnsignedCallbacks: !settings.callbackSignatures,
      });
      await connector.refresh().catch((err: unknown) => log.error({ err, environment }, "pawaPay's active configuration could not be loaded; pawaPay serves nothing until it can"));
      connectors[environment] = connector;
    }
    return { connectors, inbound: new PawapayInbound(connectors, desk, log.child({ connector: 'pawapay' })) };
  },
};
