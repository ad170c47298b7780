import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import { getCurrency } from '#packages/catalog/index.js';
import type { Country } from '#packages/catalog/types.js';
import { sinksOf } from '#packages/connectors/callbacks.js';
import type { DisputeRail } from '#packages/connectors/disputes.js';
import { NewsDesk, type RailSinks } from '#packages/connectors/news-desk.js';
import type { RailInbound, Rails, RailSubject } from '#packages/connectors/port.js';
import { RAIL_ENVIRONMENTS, type OpenedRail, type RailOpening } from '#packages/connectors/rail-module.js';
import { RAILS, type RailName } from '#packages/connectors/rails.js';
import { ConnectorRouter, type ConnectorRoute, type RailChoice } from '#packages/connectors/router.js';
import { SandboxConnector } from '#packages/connectors/sandbox/index.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { collectionBook, refundBook } from '#packages/families/payments/index.js';
import { payoutBook } from '#packages/families/payouts/index.js';
import type { ServiceConfig } from './config.js';
import { knexCardBook, knexRecipientBook } from './rail-recipients.js';
import { RailFloatBoard } from './rail-float.js';
import { RailHealthBoard } from './rail-health.js';

export interface OpenedRails {
  /** The rails of an environment, as the payment and payout services call them. */
  railsOf(environment: Environment): Rails;
  /** Each rail's receiving of its provider's news (packages/connectors/<rail>/inbound.ts), in the order of the rails' list (RAILS): the routes mount their URLs. */
  inbound: readonly RailInbound[];
  /** The routing table's connectors, by environment and name (reconciliation asks one directly). */
  connectors: ConnectorRouter;
  /** The rails' measured health the router skips set-aside rails by (docs/connectors.md, "Health"), read again every few seconds. */
  health: RailHealthBoard;
  /** What the wallets of the rails that keep Sika's money hold for payouts (docs/connectors.md, "Float"), read every RAIL_FLOAT_REFRESH. */
  float: RailFloatBoard;
  /** The rail of an environment that carries card disputes (Paystack's account), if one is configured. */
  disputeRailOf(environment: Environment): DisputeRail | null;
  /** Stops reading the health and the wallets again. */
  close(): void;
}

/** How often the measured health is read again from the attempts' read models (real time: other processes' attempts count too). */
const HEALTH_REFRESH_MS = 2_000;

/**
 * The routing table (docs/connectors.md, "The router"), first match wins, the rails in the order
 * of RAIL_PRECEDENCE (pawaPay, then Paystack, unless told): live mobile money of the operators
 * pawaPay's active configuration carries goes through pawaPay when PAWAPAY_API_TOKEN is set; cards,
 * bank payouts of the currencies Paystack lists banks for, and payouts to the Ghana and Kenya
 * mobile money operators it lists go through Paystack when PAYSTACK_SECRET_KEY is set (mobile
 * money there only where the rail before it does not serve it); mobile money of Mali, Togo and the
 * West and Central African operators Hub2 lists goes through Hub2 when HUB2_API_KEY is set (where
 * pawaPay carries an operator too, Hub2 is the rail after it); the rest is refused with
 * IKW-PRV-001. In sandbox the same, with PAWAPAY_SANDBOX_API_TOKEN, PAYSTACK_SANDBOX_SECRET_KEY
 * and HUB2_SANDBOX_API_KEY, and everything else to the simulator. Each connector loads what it
 * serves here (pawaPay's active configuration, Paystack's bank lists), at start-up; one that
 * cannot load it yet serves nothing until it can. Each rail of the list (packages/connectors/rails.ts)
 * opens itself from its section of the configuration (its `rail.ts`).
 */
export async function openRails(config: ServiceConfig, deps: { clock: Clock; log: Logger; store: EventStore; knex: Knex; sinks: RailSinks; wrap?: ((environment: Environment, routed: Rails) => Rails) | undefined }): Promise<OpenedRails> {
  const { clock, log, store, sinks } = deps;
  // The families' attempts the rails' news is matched against, registered with the desk (it knows no family).
  const desk = new NewsDesk({ clock, sinks });
  desk.register({ collections: collectionBook(store, deps.knex), refunds: refundBook(store, deps.knex) });
  desk.register({ payouts: payoutBook(store, deps.knex) });
  // Every rail of the list, one after the other in its order, each with its own section of the configuration.
  const opened = new Map<RailName, OpenedRail>();
  for (const rail of RAILS) {
    const opening: RailOpening = {
      clock,
      log,
      publicUrl: config.publicUrl,
      minorUnits: (currency) => getCurrency(currency)?.minorUnits,
      desk,
      sinks,
      kept: { records: (environment) => knexRecipientBook(deps.knex, environment, rail.name), cards: (environment) => knexCardBook(deps.knex, environment, rail.name) },
    };
    opened.set(rail.name, await rail.open(config, opening));
  }
  const table: ConnectorRoute[] = config.railPrecedence.flatMap((name) =>
    RAIL_ENVIRONMENTS.flatMap((environment) => {
      const connector = opened.get(name)?.connectors[environment];
      return connector ? [{ environment, connector }] : [];
    }),
  );
  table.push({ environment: 'sandbox', connector: new SandboxConnector(clock, config.sandboxOperatorDelayMs, config.publicUrl, sinksOf('sandbox', sinks)) });
  const health = new RailHealthBoard({ knex: deps.knex, clock }, config.railHealth);
  const refreshHealth = () => health.refresh().catch((err: unknown) => log.warn({ err }, 'the rails’ measured health could not be read; the last reading is used'));
  await refreshHealth();
  const refresher = setInterval(() => void refreshHealth(), HEALTH_REFRESH_MS);
  refresher.unref();
  // The wallets that pay payouts, read from start (not awaited: a slow provider must not hold the
  // service's start, and a rail not read yet is never passed over) and then every RAIL_FLOAT_REFRESH
  // of the clock (checked as often as the health).
  const float = new RailFloatBoard(
    table.filter((r) => r.connector.holdsFunds && r.connector.payoutFloat),
    { clock, log: log.child({ part: 'rail-float' }) },
    config.railFloatRefreshMs,
  );
  void float.refresh();
  const floatRefresher = setInterval(() => void float.refreshIfDue(), HEALTH_REFRESH_MS);
  floatRefresher.unref();
  const router = new ConnectorRouter(table, health, float);
  const routed = { sandbox: router.rails('sandbox'), live: router.rails('live') };
  const inbound: RailInbound[] = [...opened.values()].map((rail) => rail.inbound);
  return {
    railsOf: (environment) => (deps.wrap ? deps.wrap(environment, routed[environment]) : routed[environment]),
    inbound,
    connectors: router,
    health,
    float,
    disputeRailOf: (environment) => [...opened.values()].map((rail) => rail.disputes?.[environment]).find((account) => account !== undefined) ?? null,
    close: () => {
      clearInterval(refresher);
      clearInterval(floatRefresher);
    },
  };
}

/**
 * The router's decision for each method of a country in an environment (docs/dashboard.md,
 * "Configuration"): the same decision the payment and payout paths take (ConnectorRouter.decide),
 * not a re-derivation; what a refusal comes from is added (no rail configured, a rail that has
 * not loaded what it serves yet, or none that carries it).
 */
export async function railChoices(router: ConnectorRouter, environment: Environment, country: Country): Promise<RailChoice[]> {
  const connectors = router.connectorsOf(environment);
  const why = (): string => {
    if (connectors.length === 0) return `no ${environment} rail is configured`;
    const waiting = connectors.filter((c) => c.loaded?.() === false).map((c) => c.name);
    if (waiting.length > 0) return `${waiting.join(' and ')} has not loaded what it serves yet`;
    return `no configured rail (${connectors.map((c) => c.name).join(', ')}) carries it`;
  };
  const choose = async (method: RailChoice['method'], direction: RailChoice['direction'], subject: RailSubject, operator: string | null): Promise<RailChoice> => {
    const decision = router.decide(environment, direction, subject);
    if (!decision.connector) return { method, direction, operator, rail: null, availability: null, refusal: { code: decision.code, message: decision.reason, reason: why() } };
    return { method, direction, operator, rail: decision.connector.name, availability: await decision.connector.availability(direction, subject), refusal: null };
  };
  const currency = country.currency.toLowerCase();
  const choices: Promise<RailChoice>[] = [];
  for (const o of country.operators) {
    const subject: RailSubject = { rail: 'mobile_money', country: country.code, operator: o.code, currency };
    if (o.directions.includes('payin')) choices.push(choose('mobile_money', 'collect', subject, o.code));
    if (o.directions.includes('payout')) choices.push(choose('mobile_money', 'payout', subject, o.code));
  }
  choices.push(choose('card', 'collect', { rail: 'card', currency }, null), choose('bank', 'payout', { rail: 'bank', currency }, null));
  return Promise.all(choices);
}

/** A live attempt with no final answer that no status check will ask about any more. */
export interface AttemptForReview {
  object: 'payment_intent' | 'payout' | 'refund';
  id: string;
  merchant_id: string;
  status: string;
  amount: number;
  currency: string;
  /** Unix seconds. */
  created: number;
}

/**
 * The live attempts left for review (docs/connectors.md, "States and status checks"): a payment
 * still processing, a payout still on its way or a refund still pending whose status-check
 * schedule has run out, and a give-back (a contribution's, an escrow contract's) the rail failed. In live
 * every such attempt has its next check queued until then (set before the call), so one without
 * any is one the rail never answered: an operator settles it with the provider, never a guess.
 */
export async function attemptsForReview(knex: Knex): Promise<AttemptForReview[]> {
  const open = (table: string, object: AttemptForReview['object'], statuses: string[], kind: string, idField: string) =>
    knex(`${table} as o`)
      .where('o.environment', 'live')
      .whereIn('o.status', statuses)
      .whereNotExists(knex('scheduled_jobs as j').where('j.kind', kind).whereRaw(`j.payload->>'${idField}' = o.id`))
      .orderBy('o.seq')
      .select(
        knex.raw('? AS object', [object]),
        'o.id',
        'o.merchant_id',
        'o.status',
        knex.raw(`(o.object->>'amount')::bigint AS amount`),
        knex.raw(`o.object->>'currency' AS currency`),
        knex.raw(`(o.object->>'created')::bigint AS created`),
      );
  // Refunds of every family (a payment's, a contribution or escrow funds given back): pending past every check, or a give-back the rail failed, its money back on the account it left.
  const refunds = knex('read.rail_refunds as o')
    .where('o.environment', 'live')
    .where((q) => {
      q.where('o.status', 'pending')
        .whereNotExists(knex('scheduled_jobs as j').where('j.kind', 'refund.status_check').whereRaw(`j.payload->>'refundId' = o.id`))
        .orWhere((f) => {
          f.where('o.status', 'failed').whereNot('o.origin', 'payment_refund');
        });
    })
    .orderBy('o.seq')
    .select(knex.raw("'refund' AS object"), 'o.id', 'o.merchant_id', 'o.status', 'o.amount', 'o.currency', knex.raw('extract(epoch FROM o.created_at)::bigint AS created'));
  const rows = [
    ...(await open('read.payment_intents', 'payment_intent', ['processing', 'requires_action'], 'payin.status_check', 'paymentIntentId')),
    ...(await open('read.payouts', 'payout', ['pending', 'in_transit'], 'payout.status_check', 'payoutId')),
    ...(await refunds),
  ] as AttemptForReview[];
  return rows.map((r) => ({ ...r, amount: Number(r.amount), created: Number(r.created) }));
}
