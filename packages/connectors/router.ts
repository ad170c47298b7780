import { ApiError } from '../core/errors.js';
import type { Environment } from '../core/owner.js';
import { sendsAgainSafely, subjectOf, type CollectMethod, type Connector, type Direction, type PayoutDestination, type PayoutRequest, type Rails, type RailSubject } from './port.js';

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

  /** The connectors of an environment, in the order they are asked. */
  connectorsOf(environment: Environment): Connector[] {
    return this.table.filter((r) => r.environment === environment).map((r) => r.connector);
  }

  /** The connector of this environment with this name, or null when the routing table has none. */
  named(environment: Environment, name: string): Connector | null {
    return this.table.find((r) => r.environment === environment && r.connector.name === name)?.connector ?? null;
  }

  /**
   * The router's decision for a subject, the one the payment and payout paths take: the connector
   * that carries it, or the refusal they answer (IKW-PRV-001, with why). The configuration page
   * shows the same decisions (services/rails.ts, railChoices).
   */
  decide(environment: Environment, direction: 'collect' | 'payout', subject: RailSubject): { connector: Connector } | { connector: null; code: 'IKW-PRV-001'; reason: string } {
    const connector = this.route(environment, direction, subject);
    return connector ? { connector } : { connector: null, code: 'IKW-PRV-001', reason: refusal(environment, direction, subject) };
  }

  /** The rails of one environment, as the payment and payout services call them. */
  rails(environment: Environment): Rails {
    const routed = (direction: 'collect' | 'payout', what: CollectMethod | PayoutDestination, param: string): Connector => {
      const decision = this.decide(environment, direction, subjectOf(what));
      if (!decision.connector) throw new ApiError(decision.code, decision.reason, param);
      return decision.connector;
    };
    const bankConnector = (currency: string, param: string): Connector => {
      const decision = this.decide(environment, 'payout', { rail: 'bank', currency: currency.toUpperCase() });
      if (!decision.connector) throw new ApiError(decision.code, decision.reason, param);
      return decision.connector;
    };
    // A payout stays with the connector it recorded (PayoutRequest.connector), whatever the table says now.
    const carrier = (request: PayoutRequest): Connector => {
      if (request.connector === undefined) return routed('payout', request.destination, 'destination');
      const connector = this.named(environment, request.connector);
      if (!connector) throw new ApiError('IKW-PRV-001', `${environment === 'live' ? 'Live' : 'Sandbox'} payouts through ${request.connector}, which carries this payout, are not configured any more`, 'destination');
      return connector;
    };
    return {
      assertCanCollect: (method, money) => routed('collect', method, 'payment_method').assertCanCollect(method, money),
      collect: async (request) => routed('collect', request.paymentMethod, 'payment_method').collect(request),
      assertCanPayOut: (destination, money) => routed('payout', destination, 'destination').assertCanPayOut(destination, money),
      verifyDestination: async (destination, owner) => routed('payout', destination, 'destination').verifyDestination?.(destination, { merchantId: owner.merchantId, environment }),
      banks: async (currency) => (await bankConnector(currency, 'currency').banks?.(currency.toUpperCase())) ?? [],
      accountHolder: async (account) => (await bankConnector(account.currency, 'currency').accountHolder?.({ ...account, currency: account.currency.toUpperCase() })) ?? null,
      payout: async (request) => carrier(request).payout(request),
      collectStatus: async (request) => routed('collect', request.paymentMethod, 'payment_method').collectStatus(request),
      payoutStatus: async (request) => carrier(request).payoutStatus(request),
      statusChecks: (direction, what, carriedBy) => {
        const connector = carriedBy !== undefined ? this.named(environment, carriedBy) : this.route(environment, direction, subjectOf(what));
        return connector?.statusChecks?.length ? { connector: connector.name, schedule: connector.statusChecks, sendsAgain: sendsAgainSafely(connector, direction) } : null;
      },
      clearingRail: (direction, what) => {
        const connector = this.route(environment, direction, subjectOf(what));
        return connector?.holdsFunds ? connector.name : null;
      },
      refunder: (name) => {
        const connector = this.named(environment, name);
        return connector && connector.refunds !== false ? connector : null;
      },
    };
  }
}

function refusal(environment: Environment, direction: 'collect' | 'payout', what: RailSubject): string {
  const mode = environment === 'live' ? 'Live' : 'Sandbox';
  if (direction === 'collect') {
    const method = what.rail === 'mobile_money' ? `operator ${what.operator} (${what.country})` : 'cards';
    return `${mode} processing is not enabled for ${method}: no connector is configured`;
  }
  const destination = what.rail === 'mobile_money' ? `operator ${what.operator} (${what.country})` : 'bank transfers';
  return `${mode} payouts are not enabled for ${destination}: no connector is configured`;
}
