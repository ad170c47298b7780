import { ApiError } from '#packages/core/errors.js';
import type { Environment } from '#packages/core/owner.js';
import {
  sendsAgainSafely,
  subjectOf,
  type Availability,
  type ChoiceOf,
  type CollectMethod,
  type CollectRequest,
  type Connector,
  type Direction,
  type Money,
  type PayoutDestination,
  type PayoutRequest,
  type Rails,
  type RailSubject,
  type PassedOverRail,
} from './port.js';

/** One line of the routing table: this connector carries what it serves in this environment. */
export interface ConnectorRoute {
  environment: Environment;
  connector: Connector;
}

/**
 * The rails' measured health as the router reads it, synchronously (services/rail-health.ts keeps
 * it): whether a rail is set aside for a direction and subject now (its breaker open, or half-open
 * with its one probe out, packages/connectors/health.ts).
 */
export interface RailHealthGate {
  setAside(environment: Environment, rail: string, direction: 'collect' | 'payout', subject: RailSubject): boolean;
  /** An attempt is sent through `rail` now (before its read model shows it): a half-open rail's probe is out. */
  sent?(environment: Environment, rail: string, direction: 'collect' | 'payout', subject: RailSubject): void;
}

/**
 * What the rails' wallets hold as the router reads it, synchronously (services/rail-float.ts keeps
 * it): whether the wallet that pays a rail's payouts of this subject covers `money`. Undefined
 * when it cannot say (nothing read yet, no wallet of that currency): never a reason to pass a rail over.
 */
export interface RailFloatGate {
  covers(environment: Environment, rail: string, subject: RailSubject, money: Money): boolean | undefined;
  /** A payout of `money` is sent through `rail` now: it is off the wallet until a reading shows it. */
  sent(environment: Environment, rail: string, subject: RailSubject, money: Money): void;
}

/** A rail that serves a subject and was passed over (the port's PassedOverRail). */
export type SkippedRail = PassedOverRail;

/** The router's decision: the connector and the rails passed over before it, or the refusal. */
export type RouteDecision = { connector: Connector; skipped: SkippedRail[] } | { connector: null; code: 'IKW-PRV-001'; reason: string; skipped: SkippedRail[] };

/** What the router does with one method of a country, as the configuration page shows it. */
export interface RailChoice {
  method: 'mobile_money' | 'card' | 'bank';
  direction: 'collect' | 'payout';
  /** The mobile money operator (catalog code); null for cards and banks. */
  operator: string | null;
  /** The connector that carries it; null: refused. */
  rail: string | null;
  /** What that rail says of it now; null when refused. */
  availability: Availability | null;
  /** The refusal the payment or payout answers (IKW-PRV-001: its code and message), and why no rail carries it; null when a rail does. */
  refusal: { code: string; message: string; reason: string } | null;
}

/**
 * Picks the connector of each operation: operator (or rail) × direction × environment, from the
 * routing table the configuration builds (services/system.ts), the first that serves it and is not
 * passed over wins. With a health gate, a rail its provider declares unavailable, or that the gate
 * sets aside, is passed over; with a float gate, a payout's rail whose wallet is known not to
 * cover the payout's money (`ChoiceOf.money`) is too; without them, precedence alone decides.
 * Nothing routed is refused with IKW-PRV-001 before any money is held. A connector an attempt
 * recorded carries it, never routed again.
 */
export class ConnectorRouter {
  constructor(
    private readonly table: readonly ConnectorRoute[],
    private readonly health?: RailHealthGate,
    private readonly float?: RailFloatGate,
  ) {}

  /** The connector that carries this, or null when none is configured or every one that serves it is passed over. */
  route(environment: Environment, direction: Direction, subject: RailSubject): Connector | null {
    return this.choose(environment, direction, subject).connector;
  }

  private choose(environment: Environment, direction: Direction, subject: RailSubject, of: ChoiceOf = {}): { connector: Connector | null; served: boolean; skipped: SkippedRail[] } {
    const skipped: SkippedRail[] = [];
    let served = false;
    for (const route of this.table) {
      if (route.environment !== environment || !route.connector.serves(direction, subject)) continue;
      served = true;
      const why = of.excluding?.includes(route.connector.name) ? 'rejected' : this.passedOver(environment, direction, subject, route.connector, of.money);
      if (why === null) return { connector: route.connector, served, skipped };
      skipped.push({ rail: route.connector.name, why });
    }
    return { connector: null, served, skipped };
  }

  private passedOver(environment: Environment, direction: Direction, subject: RailSubject, connector: Connector, money: Money | undefined): SkippedRail['why'] | null {
    // Refunds go to the connector of their collection by name (refunder): nothing to choose.
    if (direction === 'refund') return null;
    if (this.health) {
      if (connector.declaredAvailability?.(direction, subject) === 'unavailable') return 'declared_unavailable';
      if (this.health.setAside(environment, connector.name, direction, subject)) return 'set_aside';
    }
    // Only a wallet known to be short passes a rail over: one not read yet may well cover it.
    if (direction === 'payout' && money && this.float?.covers(environment, connector.name, subject, money) === false) return 'float_short';
    return null;
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
   * that carries it and the rails passed over before it, or the refusal they answer (IKW-PRV-001,
   * with why). The configuration page shows the same decisions (services/rails.ts, railChoices).
   */
  decide(environment: Environment, direction: 'collect' | 'payout', subject: RailSubject, of: ChoiceOf = {}): RouteDecision {
    const { connector, served, skipped } = this.choose(environment, direction, subject, of);
    if (connector) return { connector, skipped };
    return { connector: null, code: 'IKW-PRV-001', reason: served ? unavailable(environment, direction, subject, skipped) : refusal(environment, direction, subject), skipped };
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
    // An attempt stays with the connector it recorded (PayoutRequest.connector, CollectRequest.connector),
    // whatever the table or the rails' health say now: one that may have reached a provider never moves.
    const recorded = (name: string, what: string, param: string): Connector => {
      const connector = this.named(environment, name);
      if (!connector) throw new ApiError('IKW-PRV-001', `${environment === 'live' ? 'Live' : 'Sandbox'} ${what} through ${name}, which carries this ${what.replace(/s$/, '')}, are not configured any more`, param);
      return connector;
    };
    const carrier = (request: PayoutRequest): Connector => (request.connector === undefined ? routed('payout', request.destination, 'destination') : recorded(request.connector, 'payouts', 'destination'));
    const collector = (request: CollectRequest): Connector => (request.connector === undefined ? routed('collect', request.paymentMethod, 'payment_method') : recorded(request.connector, 'payments', 'payment_method'));
    return {
      assertCanCollect: (method, money) => routed('collect', method, 'payment_method').assertCanCollect(method, money),
      collect: async (request) => {
        const connector = collector(request);
        this.health?.sent?.(environment, connector.name, 'collect', subjectOf(request.paymentMethod));
        return connector.collect(request);
      },
      submitOtp: async (request, code) => {
        const connector = collector(request);
        if (!connector.submitOtp) throw new ApiError('IKW-PRV-001', `${connector.name} takes no one-time codes for this payment`, 'code');
        return connector.submitOtp(request, code);
      },
      assertCanPayOut: (destination, money) => routed('payout', destination, 'destination').assertCanPayOut(destination, money),
      verifyDestination: async (destination, owner) => routed('payout', destination, 'destination').verifyDestination?.(destination, { merchantId: owner.merchantId, environment }),
      banks: async (currency) => (await bankConnector(currency, 'currency').banks?.(currency.toUpperCase())) ?? [],
      accountHolder: async (account) => (await bankConnector(account.currency, 'currency').accountHolder?.({ ...account, currency: account.currency.toUpperCase() })) ?? null,
      payout: async (request) => {
        const connector = carrier(request);
        this.health?.sent?.(environment, connector.name, 'payout', subjectOf(request.destination));
        this.float?.sent(environment, connector.name, subjectOf(request.destination), { amount: request.amount, currency: request.currency });
        return connector.payout(request);
      },
      collectStatus: async (request) => collector(request).collectStatus(request),
      payoutStatus: async (request) => carrier(request).payoutStatus(request),
      statusChecks: (direction, what, carriedBy) => {
        const connector = carriedBy !== undefined ? this.named(environment, carriedBy) : this.route(environment, direction, subjectOf(what));
        return connector?.statusChecks?.length ? { connector: connector.name, schedule: connector.statusChecks, sendsAgain: sendsAgainSafely(connector, direction) } : null;
      },
      choose: (direction, what, of) => {
        const decision = this.decide(environment, direction, subjectOf(what), of);
        return { clearingRail: decision.connector?.holdsFunds ? decision.connector.name : null, passedOver: decision.skipped, ...(decision.connector === null && decision.skipped.length > 0 ? { refusal: decision.reason } : {}) };
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

/** Why a subject some rails serve is refused now: each of them is passed over (RouteDecision.skipped). */
function unavailable(environment: Environment, direction: 'collect' | 'payout', what: RailSubject, skipped: readonly SkippedRail[]): string {
  const mode = environment === 'live' ? 'Live' : 'Sandbox';
  const subject = what.rail === 'mobile_money' ? `operator ${what.operator} (${what.country})` : what.rail === 'card' ? 'cards' : 'bank transfers';
  const why = skipped.map((s) => `${s.rail} ${SKIPPED_WHY[s.why]}`).join(', ');
  return `${mode} ${direction === 'collect' ? 'payments' : 'payouts'} for ${subject} are unavailable for now: every rail that carries them is down (${why}); try again in a few minutes`;
}

const SKIPPED_WHY: Record<SkippedRail['why'], string> = {
  declared_unavailable: 'says it is closed',
  set_aside: 'has been failing',
  rejected: 'refused this attempt',
  float_short: 'has too little in its wallet',
};
