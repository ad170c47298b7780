import { ApiError } from '../core/errors.js';
import type { Environment } from '../core/owner.js';
import { subjectOf, type CollectMethod, type Connector, type Direction, type PayoutDestination, type Rails, type RailSubject } from './port.js';

/** One line of the routing table: this connector carries what it serves in this environment. */
export interface ConnectorRoute {
  environment: Environment;
  connector: Connector;
}

/**
 * Picks the connector of each operation: operator (or rail) × direction × environment, from the
 * routing table the configuration builds (services/system.ts), first match wins. Nothing routed is
 * refused with IKW-PRV-001 before any money is held.
 */
export class ConnectorRouter {
  constructor(private readonly table: readonly ConnectorRoute[]) {}

  /** The connector that carries this, or null when none is configured. */
  route(environment: Environment, direction: Direction, subject: RailSubject): Connector | null {
    return this.table.find((r) => r.environment === environment && r.connector.serves(direction, subject))?.connector ?? null;
  }

  /** The connector of this environment with this name, or null when the routing table has none. */
  named(environment: Environment, name: string): Connector | null {
    return this.table.find((r) => r.environment === environment && r.connector.name === name)?.connector ?? null;
  }

  /** The rails of one environment, as the payment and payout services call them. */
  rails(environment: Environment): Rails {
    const routed = (direction: 'collect' | 'payout', what: CollectMethod | PayoutDestination, param: string): Connector => {
      const connector = this.route(environment, direction, subjectOf(what));
      if (!connector) throw new ApiError('IKW-PRV-001', refusal(environment, direction, what), param);
      return connector;
    };
    return {
      assertCanCollect: (method) => routed('collect', method, 'payment_method').assertCanCollect(method),
      collect: async (request) => routed('collect', request.paymentMethod, 'payment_method').collect(request),
      assertCanPayOut: (destination) => routed('payout', destination, 'destination').assertCanPayOut(destination),
      verifyDestination: async (destination, owner) => routed('payout', destination, 'destination').verifyDestination?.(destination, { merchantId: owner.merchantId, environment }),
      payout: async (request) => routed('payout', request.destination, 'destination').payout(request),
      collectStatus: async (request) => routed('collect', request.paymentMethod, 'payment_method').collectStatus(request),
      payoutStatus: async (request) => routed('payout', request.destination, 'destination').payoutStatus(request),
      statusChecks: (direction, what) => {
        const connector = this.route(environment, direction, subjectOf(what));
        return connector?.statusChecks?.length ? { connector: connector.name, schedule: connector.statusChecks } : null;
      },
      clearingRail: (direction, what) => {
        const connector = this.route(environment, direction, subjectOf(what));
        return connector?.holdsFunds ? connector.name : null;
      },
      refunder: (name) => this.named(environment, name),
    };
  }
}

function refusal(environment: Environment, direction: 'collect' | 'payout', what: CollectMethod | PayoutDestination): string {
  const mode = environment === 'live' ? 'Live' : 'Sandbox';
  if (direction === 'collect') {
    const method = what.type === 'mobile_money' ? `operator ${what.operator} (${what.country})` : 'cards';
    return `${mode} processing is not enabled for ${method}: no connector is configured`;
  }
  const destination = what.type === 'mobile_money' ? `operator ${what.operator} (${what.country})` : 'bank transfers';
  return `${mode} payouts are not enabled for ${destination}: no connector is configured`;
}
