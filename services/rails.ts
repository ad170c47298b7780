import type { Knex } from 'knex';
import type { Clock } from '../packages/core/clock.js';
import { ConfigError, type Config, type Hub2Account, type PawapayAccount, type PaystackAccount, type RailName } from '../packages/core/config.js';
import { ApiError } from '../packages/core/errors.js';
import type { Logger } from '../packages/core/logger.js';
import type { Environment } from '../packages/core/owner.js';
import { getCurrency } from '../packages/catalog/index.js';
import type { Country } from '../packages/catalog/types.js';
import { sinksOf, type CallbackSinks, type CollectCallback, type PayoutCallback, type RefundCallback } from '../packages/connectors/callbacks.js';
import { PawapayConnector, pawapayId, type CallbackKind, type IncomingCallback, type PawapayNews } from '../packages/connectors/pawapay/index.js';
import { PaystackConnector } from '../packages/connectors/paystack/index.js';
import type { DisputeNews, DisputeRail } from '../packages/connectors/disputes.js';
import { Hub2Connector } from '../packages/connectors/hub2/index.js';
import { providerFor } from '../packages/connectors/hub2/providers.js';
import { reportedMismatch, withReceipt, type Availability, type Connector, type Rails, type RailSubject, type ReportedMoney } from '../packages/connectors/port.js';
import { ConnectorRouter, type ConnectorRoute } from '../packages/connectors/router.js';
import { SandboxConnector } from '../packages/connectors/sandbox/index.js';
import { loadState } from '../packages/eventstore/command-handler.js';
import type { EventStore } from '../packages/eventstore/port.js';
import type { CollectStatusCheck } from '../packages/families/payments/payment-intent/commands.js';
import { paymentIntentAggregate } from '../packages/families/payments/payment-intent/render.js';
import { paymentIntentStream } from '../packages/families/payments/payment-intent/events.js';
import { knexCardBook, knexRecipientBook } from './rail-recipients.js';
import { RailFloatBoard } from './rail-float.js';
import { RailHealthBoard } from './rail-health.js';
import type { PayoutStatusCheck } from '../packages/families/payouts/payout/commands.js';
import { storedRailRefund, type RefundStatusCheck } from '../packages/families/payments/rail-refund/commands.js';
import { payoutAggregate } from '../packages/families/payouts/payout/render.js';
import { payoutStream } from '../packages/families/payouts/payout/events.js';

/** Where the rails' news goes: the callback jobs, and the status checks of what cannot be believed as told. */
export interface RailSinks extends CallbackSinks {
  /** A refund's answer (the sandbox sends none: its refunds are the ledger's alone). */
  refund(callback: RefundCallback, at: Date): Promise<void>;
  collectStatusCheck(check: CollectStatusCheck, at: Date): Promise<void>;
  payoutStatusCheck(check: PayoutStatusCheck, at: Date): Promise<void>;
  refundStatusCheck(check: RefundStatusCheck, at: Date): Promise<void>;
  /** A rail's verified news of a card dispute: the dispute is read from the rail by the job (docs/disputes.md). */
  dispute(news: DisputeNews, at: Date): Promise<void>;
}

/** After the first check (PAWAPAY_STATUS_CHECK_AFTER, PAYSTACK_STATUS_CHECK_AFTER, HUB2_STATUS_CHECK_AFTER), each delay after the one before: backing off to hours, about two days in all. */
const LATER_CHECKS_MS = [5 * 60_000, 15 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 24 * 3_600_000];

/** The rails' callbacks as the service answers them: 200 (taken, or left to a status check) or a refusal. */
export interface RailCallbacks {
  /** POST /connectors/pawapay/{deposits|payouts|refunds}; IKW-PRV-003 when it does not verify, IKW-PRV-004 when pawaPay is not configured. */
  pawapay(kind: CallbackKind, incoming: IncomingCallback): Promise<void>;
  /** POST /connectors/paystack/events; IKW-PRV-003 when its signature is no configured account's, IKW-PRV-004 when Paystack is not configured. */
  paystack(incoming: IncomingCallback): Promise<void>;
  /** POST /connectors/hub2/events; IKW-PRV-003 when its Hub2-Signature does not verify, IKW-PRV-004 when Hub2 is not configured. */
  hub2(incoming: IncomingCallback): Promise<void>;
}

export interface OpenedRails {
  /** The rails of an environment, as the payment and payout services call them. */
  railsOf(environment: Environment): Rails;
  callbacks: RailCallbacks;
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
 * cannot load it yet serves nothing until it can.
 */
export async function openRails(
  config: Config,
  deps: { clock: Clock; log: Logger; store: EventStore; knex: Knex; sinks: RailSinks; wrap?: ((environment: Environment, routed: Rails) => Rails) | undefined },
): Promise<OpenedRails> {
  const { clock, log, store, sinks } = deps;
  const pawapay: Partial<Record<Environment, PawapayConnector>> = {};
  for (const environment of ['live', 'sandbox'] as const) {
    const account: PawapayAccount | null = config.pawapay[environment];
    if (!account) continue;
    const connector = new PawapayConnector({
      baseUrl: account.apiUrl,
      apiToken: account.apiToken,
      clock,
      log: log.child({ connector: 'pawapay', environment }),
      minorUnits: (currency) => getCurrency(currency)?.minorUnits,
      publicUrl: config.publicUrl,
      ...(config.pawapay.signing ? { requestSigning: { key: config.pawapay.signing } } : {}),
      statusChecks: [config.pawapay.statusCheckAfterMs, ...LATER_CHECKS_MS],
      acceptUnsignedCallbacks: !config.pawapay.callbackSignatures,
    });
    await connector.refresh().catch((err: unknown) => log.error({ err, environment }, "pawaPay's active configuration could not be loaded; pawaPay serves nothing until it can"));
    pawapay[environment] = connector;
  }
  const paystack: Partial<Record<Environment, PaystackConnector>> = {};
  for (const environment of ['live', 'sandbox'] as const) {
    const account: PaystackAccount | null = config.paystack[environment];
    if (!account) continue;
    const connector = new PaystackConnector({
      baseUrl: account.apiUrl,
      secretKey: account.secretKey,
      clock,
      log: log.child({ connector: 'paystack', environment }),
      minorUnits: (currency) => getCurrency(currency)?.minorUnits,
      recipients: knexRecipientBook(deps.knex, environment),
      cards: knexCardBook(deps.knex, environment),
      statusPage: (operationId) => `${config.publicUrl}/operations/status/${operationId}`,
      sinks: sinksOf('paystack', sinks),
      statusChecks: [config.paystack.statusCheckAfterMs, ...LATER_CHECKS_MS],
    });
    await connector.refresh().catch((err: unknown) => log.error({ err, environment }, "Paystack's bank list could not be loaded; Paystack serves nothing until it can"));
    paystack[environment] = connector;
  }
  const hub2: Partial<Record<Environment, Hub2Connector>> = {};
  for (const entry of config.hub2.payoutOperators ?? []) {
    const [country, operator] = entry.split(':') as [string, string];
    if (!providerFor(country, operator)?.paysOut) throw new ConfigError('HUB2_PAYOUT_OPERATORS', `Hub2 does not pay out to ${entry}`);
  }
  for (const environment of ['live', 'sandbox'] as const) {
    const account: Hub2Account | null = config.hub2[environment];
    if (!account) continue;
    hub2[environment] = new Hub2Connector({
      baseUrl: account.apiUrl,
      apiKey: account.apiKey,
      merchantId: account.merchantId,
      environment,
      clock,
      book: knexRecipientBook(deps.knex, environment, 'hub2'),
      webhookSecret: config.hub2.webhookSecret,
      statusChecks: [config.hub2.statusCheckAfterMs, ...LATER_CHECKS_MS],
      payoutOperators: config.hub2.payoutOperators,
      log: log.child({ connector: 'hub2', environment }),
    });
  }
  const rails: Record<RailName, Partial<Record<Environment, Connector>>> = { pawapay, paystack, hub2 };
  const table: ConnectorRoute[] = config.railPrecedence.flatMap((name) => (['live', 'sandbox'] as const).flatMap((environment) => (rails[name][environment] ? [{ environment, connector: rails[name][environment] }] : [])));
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
  const desk = new NewsDesk({ clock, store, knex: deps.knex, sinks });
  const receiver = new PawapayReceiver(pawapay, desk, log.child({ connector: 'pawapay' }));
  const paystackReceiver = new PaystackReceiver(paystack, desk, log.child({ connector: 'paystack' }));
  const hub2Receiver = new Hub2Receiver(hub2, desk, log.child({ connector: 'hub2' }));
  return {
    railsOf: (environment) => (deps.wrap ? deps.wrap(environment, routed[environment]) : routed[environment]),
    callbacks: { pawapay: (kind, incoming) => receiver.receive(kind, incoming), paystack: (incoming) => paystackReceiver.receive(incoming), hub2: (incoming) => hub2Receiver.receive(incoming) },
    connectors: router,
    health,
    float,
    disputeRailOf: (environment) => paystack[environment] ?? null,
    close: () => {
      clearInterval(refresher);
      clearInterval(floatRefresher);
    },
  };
}

/** Verified news of a rail, in Sika's terms, before it is matched against the stored attempt. */
type RailNews =
  | { kind: 'collect'; callback: Omit<CollectCallback, 'connector'> }
  | { kind: 'payout'; callback: Omit<PayoutCallback, 'connector'> }
  | { kind: 'refund'; refund: Omit<RefundCallback, 'connector'> };

/**
 * Where every rail's verified news goes (pawaPay's callbacks, Paystack's webhooks): matched on id,
 * amount and currency against the stored attempt before it reaches the callback jobs. What cannot
 * be matched moves nothing: a status check of the connector decides.
 */
class NewsDesk {
  constructor(private readonly deps: { clock: Clock; store: EventStore; knex: Knex; sinks: RailSinks }) {}

  async deliver(connector: string, environment: Environment, news: RailNews, reported: ReportedMoney, log: Logger): Promise<void> {
    const now = this.deps.clock.now();
    const owner = news.kind === 'refund' ? news.refund : news.callback;
    const ids = news.kind === 'collect' ? { operationId: news.callback.operationId, paymentIntentId: news.callback.paymentIntentId } : news.kind === 'payout' ? { payoutId: news.callback.payoutId } : { refundId: news.refund.refundId };
    if (owner.environment !== environment) {
      log.error({ ...ids, environment }, "callback of another environment's account; nothing applied");
      return;
    }
    const stored =
      news.kind === 'collect' ? await this.storedCollection(news.callback) : news.kind === 'payout' ? await this.storedPayout(news.callback.payoutId, news.callback) : await storedRailRefund(this.deps.store, news.refund.refundId, owner);
    if (!stored) {
      log.error({ ...ids }, 'callback of no attempt of this service; nothing applied');
      return;
    }
    const mismatch = reportedMismatch(stored, reported);
    if (mismatch) {
      log.error({ ...ids, reported }, `callback does not match the stored attempt (${mismatch}); nothing applied, a status check decides`);
      if (news.kind === 'collect') await this.recheckCollection(connector, owner.merchantId, environment, news.callback.operationId, news.callback.paymentIntentId);
      else if (news.kind === 'payout') await this.recheckPayout(connector, owner.merchantId, environment, news.callback.payoutId);
      else await this.recheckRefund(connector, owner.merchantId, environment, news.refund.refundId);
      return;
    }
    if (news.kind === 'collect') await this.deps.sinks.collect({ ...news.callback, outcome: withReceipt(news.callback.outcome, reported), connector }, now);
    else if (news.kind === 'payout') await this.deps.sinks.payout({ ...news.callback, report: withReceipt(news.callback.report, reported), connector }, now);
    else await this.deps.sinks.refund({ ...news.refund, outcome: withReceipt(news.refund.outcome, reported), connector }, now);
  }

  /** The payment a collection's news is about, when it is the merchant's and this is its current operation. */
  private async storedCollection(callback: Omit<CollectCallback, 'connector'>): Promise<{ amount: number; currency: string } | null> {
    const { state } = await loadState(this.deps.store, paymentIntentStream(callback.paymentIntentId), paymentIntentAggregate);
    const intent = state.intent;
    const ours = intent && intent.merchantId === callback.merchantId && intent.environment === callback.environment && state.confirmation?.operationId === callback.operationId;
    return ours ? intent : null;
  }

  /** A payout, when it is the owner's (any owner of `environment` when only that is known: a reference names the payout alone). */
  async storedPayout(payoutId: string, owner: { merchantId?: string; environment: Environment }): Promise<{ merchantId: string; amount: number; currency: string } | null> {
    const { state } = await loadState(this.deps.store, payoutStream(payoutId), payoutAggregate);
    const p = state.payout;
    return p && (owner.merchantId === undefined || p.merchantId === owner.merchantId) && p.environment === owner.environment ? p : null;
  }

  /** A payment of this environment, whoever's (a reference names the operation alone). */
  async storedIntent(paymentIntentId: string, environment: Environment): Promise<{ merchantId: string } | null> {
    const { state } = await loadState(this.deps.store, paymentIntentStream(paymentIntentId), paymentIntentAggregate);
    return state.intent && state.intent.environment === environment ? state.intent : null;
  }

  /**
   * A status check now of the payment whose current operation this is, news naming the operation
   * alone (a verified webhook without Sika's metadata: the provider's reference is the operation's
   * id). Whether there was such a payment of this environment.
   */
  async recheckCollectionOf(connector: string, environment: Environment, operationId: string): Promise<boolean> {
    const row = await this.deps.knex('read.payment_intents').where({ environment }).whereRaw(`object->>'latest_operation' = ?`, [operationId]).first<{ id: string } | undefined>('id');
    if (!row) return false;
    // The read model only points: the payment's own stream says whether this is its operation.
    const { state } = await loadState(this.deps.store, paymentIntentStream(row.id), paymentIntentAggregate);
    if (!state.intent || state.intent.environment !== environment || state.confirmation?.operationId !== operationId) return false;
    await this.recheckCollection(connector, state.intent.merchantId, environment, operationId, row.id);
    return true;
  }

  /** A read of the dispute from its rail, prompted by verified news of it. */
  async dispute(news: DisputeNews): Promise<void> {
    await this.deps.sinks.dispute(news, this.deps.clock.now());
  }

  /** A status check now, outside the schedule, of news that could not be believed as told. */
  async recheckCollection(connector: string, merchantId: string, environment: Environment, operationId: string, paymentIntentId: string): Promise<void> {
    await this.deps.sinks.collectStatusCheck({ merchantId, environment, connector, attempt: 0, prompted: true, direction: 'collect', paymentIntentId, operationId }, this.deps.clock.now());
  }

  async recheckPayout(connector: string, merchantId: string, environment: Environment, payoutId: string): Promise<void> {
    await this.deps.sinks.payoutStatusCheck({ merchantId, environment, connector, attempt: 0, prompted: true, direction: 'payout', payoutId }, this.deps.clock.now());
  }

  async recheckRefund(connector: string, merchantId: string, environment: Environment, refundId: string): Promise<void> {
    await this.deps.sinks.refundStatusCheck({ merchantId, environment, connector, attempt: 0, prompted: true, direction: 'refund', refundId }, this.deps.clock.now());
  }

  /**
   * News of a refund that names the collection and the money, not the refund (Paystack's webhooks):
   * a status check now of each of the connector's pending refunds of that operation with that
   * amount and currency. How many were asked about.
   */
  async recheckRefundsOf(connector: string, environment: Environment, operationId: string, money: ReportedMoney): Promise<number> {
    const rows = await this.deps.knex('read.rail_refunds').where({ connector, environment, status: 'pending', amount: money.amount, currency: money.currency }).select<{ id: string; merchant_id: string }[]>('id', 'merchant_id');
    let asked = 0;
    for (const row of rows) {
      const refund = await storedRailRefund(this.deps.store, row.id, { merchantId: row.merchant_id, environment });
      if (refund?.operationId !== operationId) continue;
      await this.recheckRefund(connector, row.merchant_id, environment, row.id);
      asked++;
    }
    return asked;
  }

  /**
   * The attempts of an environment still waiting for a rail's answer, of one direction: a payment
   * processing or waiting for the payer (its current operation), a payout on its way, a refund
   * pending. What news naming only the provider's own id may be about.
   */
  async openAttemptsOf(direction: 'collect' | 'payout' | 'refund', environment: Environment): Promise<{ merchantId: string; sikaId: string; paymentIntentId?: string }[]> {
    const knex = this.deps.knex;
    if (direction === 'collect') {
      const rows = await knex('read.payment_intents').where({ environment }).whereIn('status', ['processing', 'requires_action']).whereRaw("object->>'latest_operation' IS NOT NULL").select<{ id: string; merchant_id: string; operation: string }[]>('id', 'merchant_id', knex.raw("object->>'latest_operation' AS operation"));
      return rows.map((r) => ({ merchantId: r.merchant_id, sikaId: r.operation, paymentIntentId: r.id }));
    }
    const rows = direction === 'payout' ? await knex('read.payouts').where({ environment }).whereIn('status', ['pending', 'in_transit']).select<{ id: string; merchant_id: string }[]>('id', 'merchant_id') : await knex('read.rail_refunds').where({ environment, status: 'pending' }).select<{ id: string; merchant_id: string }[]>('id', 'merchant_id');
    return rows.map((r) => ({ merchantId: r.merchant_id, sikaId: r.id }));
  }
}

/**
 * pawaPay's callbacks: verified by the connector of the account that signed them, then handed to
 * the news desk. What does not verify answers 401; what cannot be believed or matched answers 200
 * (pawaPay would retry otherwise) and a status check decides. Nothing unverified or unmatched moves money.
 */
class PawapayReceiver {
  constructor(
    private readonly connectors: Partial<Record<Environment, PawapayConnector>>,
    private readonly desk: NewsDesk,
    private readonly log: Logger,
  ) {}

  async receive(kind: CallbackKind, incoming: IncomingCallback): Promise<void> {
    const accounts = (['live', 'sandbox'] as const).flatMap((environment) => (this.connectors[environment] ? [{ environment, connector: this.connectors[environment] }] : []));
    if (accounts.length === 0) throw new ApiError('IKW-PRV-004', 'pawaPay is not configured on this service');
    const log = this.log.child({ callback: kind });
    let refusal = '';
    // One URL for both accounts: the account whose key verifies it is the one that sent it.
    for (const { environment, connector } of accounts) {
      const verdict = await connector.receiveCallback(kind, incoming);
      switch (verdict.verdict) {
        case 'unauthenticated':
          refusal = verdict.reason;
          continue;
        case 'pending':
          return;
        case 'recheck':
          log.warn({ environment, pawapay_id: verdict.pawapayId, reason: verdict.reason }, 'pawaPay callback not believed as told; a status check decides');
          if (verdict.ids) {
            if (verdict.ids.environment === environment) await this.recheck(kind, environment, verdict.ids);
          } else if (verdict.pawapayId) {
            const attempt = await this.attemptOf(kind, environment, verdict.pawapayId);
            if (attempt) await this.recheck(kind, environment, attempt);
            else log.warn({ environment, pawapay_id: verdict.pawapayId }, 'pawaPay callback of no open attempt of this environment; nothing to check');
          }
          return;
        case 'news':
          await this.apply(environment, verdict.news, verdict.reported, log);
          return;
      }
    }
    log.warn({ reason: refusal }, 'pawaPay callback refused: it does not verify');
    throw new ApiError('IKW-PRV-003', `The callback does not verify: ${refusal}`);
  }

  private async recheck(kind: CallbackKind, environment: Environment, attempt: { merchantId: string; sikaId: string; paymentIntentId?: string }): Promise<void> {
    const { merchantId, sikaId, paymentIntentId } = attempt;
    if (kind === 'deposits' && paymentIntentId) await this.desk.recheckCollection('pawapay', merchantId, environment, sikaId, paymentIntentId);
    if (kind === 'payouts') await this.desk.recheckPayout('pawapay', merchantId, environment, sikaId);
    if (kind === 'refunds') await this.desk.recheckRefund('pawapay', merchantId, environment, sikaId);
  }

  /**
   * The open attempt whose pawaPay id is `pawapayId`, for a verified callback without Sika's ids
   * (no metadata): pawaPay's ids derive from Sika's one way (ids.ts), so the open attempts of the
   * kind are derived and compared. Only verified callbacks get here: the search costs a read.
   */
  private async attemptOf(kind: CallbackKind, environment: Environment, pawapayUuid: string): Promise<{ merchantId: string; sikaId: string; paymentIntentId?: string } | undefined> {
    const direction = kind === 'deposits' ? 'collect' : kind === 'payouts' ? 'payout' : 'refund';
    const wanted = pawapayUuid.toLowerCase();
    return (await this.desk.openAttemptsOf(direction, environment)).find((a) => pawapayId(a.sikaId) === wanted);
  }

  private async apply(environment: Environment, news: PawapayNews, reported: ReportedMoney, log: Logger): Promise<void> {
    if (news.kind === 'refund') {
      const { refundId, merchantId, outcome } = news.refund;
      await this.desk.deliver('pawapay', environment, { kind: 'refund', refund: { refundId, merchantId, environment: news.refund.environment, outcome } }, reported, log);
      return;
    }
    await this.desk.deliver('pawapay', environment, news, reported, log);
  }
}

/**
 * Paystack's webhooks (one URL per account, POST /connectors/paystack/events): the account is the
 * one whose secret key signs the exact body (x-paystack-signature, checked in constant time before
 * the body is parsed). A signature of no account answers 401 and does nothing else: its body is not
 * read, no status check is asked for and Paystack is not called (anyone could post one; a real
 * webhook mangled on the way comes again, and the schedule of checks goes on anyway). Verified
 * transfer events go to the news desk, matched on reference, amount and currency; verified news
 * that names Sika's operation by its reference only (no metadata) asks for a status check of it.
 * Verified dispute events (`charge.dispute.create|remind|resolve`) ask for a read of the dispute
 * (docs/disputes.md). Paystack retries for 72 hours, and the callback jobs apply a repeat once.
 */
class PaystackReceiver {
  constructor(
    private readonly connectors: Partial<Record<Environment, PaystackConnector>>,
    private readonly desk: NewsDesk,
    private readonly log: Logger,
  ) {}

  async receive(incoming: IncomingCallback): Promise<void> {
    const accounts = (['live', 'sandbox'] as const).flatMap((environment) => (this.connectors[environment] ? [{ environment, connector: this.connectors[environment] }] : []));
    if (accounts.length === 0) throw new ApiError('IKW-PRV-004', 'Paystack is not configured on this service');
    const header = incoming.headers['x-paystack-signature'];
    const signature = typeof header === 'string' ? header : undefined;
    const signer = accounts.find(({ connector }) => connector.signed(incoming.body, signature));
    if (!signer) {
      this.log.warn({ signed: signature !== undefined }, 'Paystack webhook refused: its signature is no configured account’s');
      throw new ApiError('IKW-PRV-003', signature === undefined ? 'The webhook has no x-paystack-signature' : 'The webhook’s x-paystack-signature does not verify');
    }
    const { environment, connector } = signer;
    const event = connector.eventOf(incoming.body);
    const log = this.log.child({ environment });
    if (event.kind === 'ignored') {
      log.info({ reason: event.reason, payout_id: event.payoutId }, 'Paystack webhook recorded in the log only');
      const stored = event.payoutId ? await this.desk.storedPayout(event.payoutId, { environment }) : null;
      if (stored && event.payoutId) await this.desk.recheckPayout('paystack', stored.merchantId, environment, event.payoutId);
      return;
    }
    if (event.kind === 'charge') {
      // Never believed as told: the transaction's verification (amount, currency, reference) decides.
      const intent = event.paymentIntentId ? await this.desk.storedIntent(event.paymentIntentId, environment) : null;
      if (intent && event.paymentIntentId) await this.desk.recheckCollection('paystack', intent.merchantId, environment, event.operationId, event.paymentIntentId);
      else if (!(await this.desk.recheckCollectionOf('paystack', environment, event.operationId))) log.error({ operation: event.operationId }, 'Paystack charge of no payment of this environment; nothing applied');
      return;
    }
    if (event.kind === 'dispute') {
      // Never believed as told: the job reads the dispute from Paystack and matches it to the payment.
      await this.desk.dispute({ connector: 'paystack', environment, disputeId: event.disputeId });
      return;
    }
    if (event.kind === 'refund') {
      // Never believed as told: the refund it is about is found in the transaction's refunds by the status check.
      if ((await this.desk.recheckRefundsOf('paystack', environment, event.operationId, event.reported)) === 0) log.error({ operation: event.operationId, reported: event.reported }, 'Paystack refund of no pending refund of this environment; nothing applied');
      return;
    }
    const stored = await this.desk.storedPayout(event.payoutId, { environment });
    if (!stored) {
      log.error({ payout_id: event.payoutId }, 'Paystack webhook of no payout of this environment; nothing applied');
      return;
    }
    if (!event.report) return;
    await this.desk.deliver('paystack', environment, { kind: 'payout', callback: { payoutId: event.payoutId, merchantId: stored.merchantId, environment, report: event.report } }, event.reported, log);
  }
}

/**
 * Hub2's webhooks (one URL, POST /connectors/hub2/events; both accounts share the secret Hub2
 * gave when the URL was registered): `Hub2-Signature` must verify (the current secret's `s1`, or
 * the old one's `s0` during the 24 hours after a change) before the body is read: 401 and nothing
 * else otherwise. A verified webhook is never believed as told either: it names the object to read
 * again, and a status check of the Sika attempt it belongs to reads Hub2's record and matches it on
 * id, amount and currency before any money moves. A payment's webhook names Hub2's intent, whose
 * `purchaseReference` is Sika's operation (read back from Hub2, the account that knows it being
 * the environment); a transfer's names Sika's payout by its `reference`.
 */
class Hub2Receiver {
  constructor(
    private readonly connectors: Partial<Record<Environment, Hub2Connector>>,
    private readonly desk: NewsDesk,
    private readonly log: Logger,
  ) {}

  async receive(incoming: IncomingCallback): Promise<void> {
    const accounts = (['live', 'sandbox'] as const).flatMap((environment) => (this.connectors[environment] ? [{ environment, connector: this.connectors[environment] }] : []));
    if (accounts.length === 0) throw new ApiError('IKW-PRV-004', 'Hub2 is not configured on this service');
    const header = incoming.headers['hub2-signature'];
    const signature = typeof header === 'string' ? header : undefined;
    const signers = accounts.filter(({ connector }) => connector.signed(incoming.body, signature));
    if (signers.length === 0) {
      this.log.warn({ signed: signature !== undefined }, 'Hub2 webhook refused: its Hub2-Signature does not verify');
      throw new ApiError('IKW-PRV-003', signature === undefined ? 'The webhook has no Hub2-Signature' : 'The webhook’s Hub2-Signature does not verify');
    }
    const event = signers[0]!.connector.eventOf(incoming.body);
    if (event.kind === 'ignored') {
      this.log.info({ reason: event.reason }, 'Hub2 webhook recorded in the log only');
      return;
    }
    // The account the event says it is of is asked first: a sandbox event costs no live read.
    signers.sort((a, b) => Number(b.environment === event.mode) - Number(a.environment === event.mode));
    for (const { environment, connector } of signers) {
      const log = this.log.child({ environment });
      if (event.kind === 'payout') {
        const stored = await this.desk.storedPayout(event.payoutId, { environment });
        if (stored) {
          await this.desk.recheckPayout('hub2', stored.merchantId, environment, event.payoutId);
          return;
        }
        continue;
      }
      // Hub2 is asked only now, the webhook verified: the intent tells Sika's operation and payment.
      let attempt: { operationId: string; paymentIntentId: string } | null;
      try {
        attempt = await connector.attemptOfIntent(event.hub2IntentId);
      } catch (err) {
        // Hub2 could not be read back (an outage): the attempt's own status checks settle it, on their schedule.
        log.warn({ err, hub2_intent: event.hub2IntentId }, 'Hub2 webhook of an intent Hub2 could not be read back; its status checks settle it');
        return;
      }
      const intent = attempt ? await this.desk.storedIntent(attempt.paymentIntentId, environment) : null;
      if (attempt && intent) {
        await this.desk.recheckCollection('hub2', intent.merchantId, environment, attempt.operationId, attempt.paymentIntentId);
        return;
      }
    }
    this.log.error('Hub2 webhook of no attempt of this service; nothing applied');
  }
}

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
      .select(knex.raw('? AS object', [object]), 'o.id', 'o.merchant_id', 'o.status', knex.raw(`(o.object->>'amount')::bigint AS amount`), knex.raw(`o.object->>'currency' AS currency`), knex.raw(`(o.object->>'created')::bigint AS created`));
  // Refunds of every family (a payment's, a contribution or escrow funds given back): pending past every check, or a give-back the rail failed, its money back on the account it left.
  const refunds = knex('read.rail_refunds as o')
    .where('o.environment', 'live')
    .where((q) =>
      q
        .where('o.status', 'pending')
        .whereNotExists(knex('scheduled_jobs as j').where('j.kind', 'refund.status_check').whereRaw(`j.payload->>'refundId' = o.id`))
        .orWhere((f) => f.where('o.status', 'failed').whereNot('o.origin', 'payment_refund')),
    )
    .orderBy('o.seq')
    .select(knex.raw("'refund' AS object"), 'o.id', 'o.merchant_id', 'o.status', 'o.amount', 'o.currency', knex.raw('extract(epoch FROM o.created_at)::bigint AS created'));
  const rows = [
    ...(await open('read.payment_intents', 'payment_intent', ['processing', 'requires_action'], 'payin.status_check', 'paymentIntentId')),
    ...(await open('read.payouts', 'payout', ['pending', 'in_transit'], 'payout.status_check', 'payoutId')),
    ...(await refunds),
  ] as AttemptForReview[];
  return rows.map((r) => ({ ...r, amount: Number(r.amount), created: Number(r.created) }));
}
