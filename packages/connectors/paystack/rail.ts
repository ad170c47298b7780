import { sinksOf } from '../callbacks.js';
import type { Environment } from '#packages/core/owner.js';
import { LATER_STATUS_CHECKS_MS, RAIL_ENVIRONMENTS, type RailModule } from '../rail-module.js';
import { paystackConfig, type PaystackConfig } from './config.js';
import { PaystackConnector } from './connector.js';
import { PaystackInbound } from './inbound.js';

/**
 * Paystack, the card and bank rail (docs/connectors.md, "Paystack"): a connector per account, each
 * loading Paystack's bank lists at start (one that cannot serves nothing until it can); its
 * accounts also carry card disputes.
 */
export const paystackRail: RailModule<'paystack', PaystackConfig> = {
  name: 'paystack',
  settings: paystackConfig,
  async open({ paystack: settings }, { clock, log, publicUrl, minorUnits, desk, sinks, kept }) {
    const connectors: Partial<Record<Environment, PaystackConnector>> = {};
    for (const environment of RAIL_ENVIRONMENTS) {
      const account = settings[environment];
      if (!account) continue;
      const connector = new PaystackConnector({
        baseUrl: account.apiUrl,
        secretKey: account.secretKey,
        clock,
        log: log.child({ connector: 'paystack', environment }),
        minorUnits,
        recipients: kept.records(environment),
        cards: kept.cards(environment),
        statusPage: (operationId) => `${publicUrl}/operations/status/${operationId}`,
        sinks: sinksOf('paystack', sinks),
        statusChecks: [settings.statusCheckAfterMs, ...LATER_STATUS_CHECKS_MS],
      });
      await connector.refresh().catch((err: unknown) => log.error({ err, environment }, "Paystack's bank list could not be loaded; Paystack serves nothing until it can"));
      connectors[environment] = connector;
    }
    return { connectors, inbound: new PaystackInbound(connectors, desk, log.child({ connector: 'paystack' })), disputes: connectors };
  },
};
