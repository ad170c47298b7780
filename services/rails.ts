import type { Knex } from 'knex';
import type { Clock } from '../packages/core/clock.js';
import type { Config, PawapayAccount } from '../packages/core/config.js';
import { ApiError } from '../packages/core/errors.js';
import type { Logger } from '../packages/core/logger.js';
import type { Environment } from '../packages/core/owner.js';
import { getCurrency } from '../packages/catalog/index.js';
import { sinksOf, type CallbackSinks, type CollectCallback, type PayoutCallback, type RefundCallback } from '../packages/connectors/callbacks.js';
import { PawapayConnector, type CallbackKind, type IncomingCallback, type PawapayNews } from '../packages/connectors/pawapay/index.js';
import { reportedMismatch, withReceipt, type Rails, type ReportedMoney } from '../packages/connectors/port.js';
import { ConnectorRouter, type ConnectorRoute } from '../packages/connectors/router.js';
import { SandboxConnector } from '../packages/connectors/sandbox/index.js';
import { loadState } from '../packages/eventstore/command-handler.js';
import type { EventStore } from '../packages/eventstore/port.js';
import type { CollectStatusCheck } from '../packages/domain/payment-intent/commands.js';
import { paymentIntentDecider } from '../packages/domain/payment-intent/decider.js';
import { paymentIntentStream } from '../packages/domain/payment-intent/events.js';
import type { PayoutStatusCheck } from '../packages/domain/payout/commands.js';
import { storedRailRefund, type RefundStatusCheck } from '../packages/domain/rail-refund/commands.js';
import { payoutDecider } from '../packages/domain/payout/decider.js';
import { payoutStream } from '../packages/domain/payout/events.js';

/** Where the rails' news goes: the callback jobs, and the status checks of what cannot be believed as told. */
export interface RailSinks extends CallbackSinks {
  /** A refund's answer (the sandbox sends none: its refunds are the ledger's alone). */
  refund(callback: RefundCallback, at: Date): Promise<void>;
  collectStatusCheck(check: CollectStatusCheck, at: Date): Promise<void>;
  payoutStatusCheck(check: PayoutStatusCheck, at: Date): Promise<void>;
  refundStatusCheck(check: RefundStatusCheck, at: Date): Promise<void>;
}

/** After the first check (PAWAPAY_STATUS_CHECK_AFTER), each delay after the one before: backing off to hours, about two days in all. */
const LATER_CHECKS_MS = [5 * 60_000, 15 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 24 * 3_600_000];

/** pawaPay's callbacks as the service answers them: 200 (taken, or left to a status check) or a refusal. */
export interface RailCallbacks {
  /** POST /connectors/pawapay/{deposits|payouts|refunds}; IKW-PRV-003 when it does not verify, IKW-PRV-004 when pawaPay is not configured. */
  pawapay(kind: CallbackKind, incoming: IncomingCallback): Promise<void>;
}

export interface OpenedRails {
  /** The rails of an environment, as the payment and payout services call them. */
  railsOf(environment: Environment): Rails;
  callbacks: RailCallbacks;
  /** The routing table's connectors, by environment and name (reconciliation asks one directly). */
  connectors: ConnectorRouter;
}

/**
 * The routing table (docs/connectors.md, "The router"), first match wins: live mobile money of
 * the countries pawaPay serves goes through pawaPay when PAWAPAY_API_TOKEN is set (Mali, Togo and
 * the rest stay refused with IKW-PRV-001); sandbox mobile money goes through pawaPay's sandbox
 * when PAWAPAY_SANDBOX_API_TOKEN is set, and everything else of sandbox to the simulator. Each
 * pawaPay connector loads its active configuration here, at start-up; one that cannot be loaded
 * yet serves nothing until it can.
 */
export async function openRails(
  config: Config,
  deps: { clock: Clock; log: Logger; store: EventStore; sinks: RailSinks; wrap?: ((environment: Environment, routed: Rails) => Rails) | undefined },
): Promise<OpenedRails> {
  const { clock, log, store, sinks } = deps;
  const pawapay: Partial<Record<Environment, PawapayConnector>> = {};
  const table: ConnectorRoute[] = [];
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
    table.push({ environment, connector });
  }
  table.push({ environment: 'sandbox', connector: new SandboxConnector(clock, config.sandboxOperatorDelayMs, config.publicUrl, sinksOf('sandbox', sinks)) });
  const router = new ConnectorRouter(table);
  const rails = { sandbox: router.rails('sandbox'), live: router.rails('live') };
  const receiver = new PawapayReceiver(pawapay, { clock, log: log.child({ connector: 'pawapay' }), store, sinks });
  return {
    railsOf: (environment) => (deps.wrap ? deps.wrap(environment, rails[environment]) : rails[environment]),
    callbacks: { pawapay: (kind, incoming) => receiver.receive(kind, incoming) },
    connectors: router,
  };
}

/**
 * pawaPay's callbacks: verified by the connector of the account that signed them, then matched on
 * id, amount and currency against the stored attempt before they reach the callback jobs. What
 * does not verify answers 401; what cannot be believed or matched answers 200 (pawaPay would
 * retry otherwise) and a status check decides. Nothing unverified or unmatched moves money.
 */
class PawapayReceiver {
  constructor(
    private readonly connectors: Partial<Record<Environment, PawapayConnector>>,
    private readonly deps: { clock: Clock; log: Logger; store: EventStore; sinks: RailSinks },
  ) {}

  async receive(kind: CallbackKind, incoming: IncomingCallback): Promise<void> {
    const accounts = (['live', 'sandbox'] as const).flatMap((environment) => (this.connectors[environment] ? [{ environment, connector: this.connectors[environment] }] : []));
    if (accounts.length === 0) throw new ApiError('IKW-PRV-004', 'pawaPay is not configured on this service');
    const log = this.deps.log.child({ callback: kind });
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
          if (verdict.ids?.environment === environment) await this.recheck(kind, verdict.ids.merchantId, environment, verdict.ids.sikaId, verdict.ids.paymentIntentId);
          return;
        case 'news':
          await this.apply(environment, verdict.news, verdict.reported, log);
          return;
      }
    }
    log.warn({ reason: refusal }, 'pawaPay callback refused: it does not verify');
    throw new ApiError('IKW-PRV-003', `The callback does not verify: ${refusal}`);
  }

  /** Verified news, matched against the stored attempt before it reaches the callback jobs. */
  private async apply(environment: Environment, news: PawapayNews, reported: ReportedMoney, log: Logger): Promise<void> {
    const now = this.deps.clock.now();
    const owner = news.kind === 'refund' ? news.refund : news.callback;
    const ids = news.kind === 'collect' ? { operationId: news.callback.operationId, paymentIntentId: news.callback.paymentIntentId } : news.kind === 'payout' ? { payoutId: news.callback.payoutId } : { refundId: news.refund.refundId };
    const sikaId = news.kind === 'collect' ? news.callback.operationId : news.kind === 'payout' ? news.callback.payoutId : news.refund.refundId;
    if (owner.environment !== environment) {
      log.error({ ...ids, environment }, "pawaPay callback of another environment's account; nothing applied");
      return;
    }
    const stored = news.kind === 'collect' ? await this.storedCollection(news.callback) : news.kind === 'payout' ? await this.storedPayout(news.callback) : await storedRailRefund(this.deps.store, news.refund.refundId, owner);
    if (!stored) {
      log.error({ ...ids }, 'pawaPay callback of no attempt of this service; nothing applied');
      return;
    }
    const mismatch = reportedMismatch(stored, reported);
    if (mismatch) {
      log.error({ ...ids, reported }, `pawaPay callback does not match the stored attempt (${mismatch}); nothing applied, a status check decides`);
      const kind: CallbackKind = news.kind === 'collect' ? 'deposits' : news.kind === 'payout' ? 'payouts' : 'refunds';
      await this.recheck(kind, owner.merchantId, environment, sikaId, news.kind === 'collect' ? news.callback.paymentIntentId : undefined);
      return;
    }
    if (news.kind === 'collect') await this.deps.sinks.collect({ ...news.callback, outcome: withReceipt(news.callback.outcome, reported), connector: 'pawapay' }, now);
    else if (news.kind === 'payout') await this.deps.sinks.payout({ ...news.callback, report: withReceipt(news.callback.report, reported), connector: 'pawapay' }, now);
    else {
      const { refundId, merchantId, outcome } = news.refund;
      await this.deps.sinks.refund({ refundId, merchantId, environment, outcome: withReceipt(outcome, reported), connector: 'pawapay' }, now);
    }
  }

  /** The payment a deposit callback is about, when it is the merchant's and this is its current operation. */
  private async storedCollection(callback: Omit<CollectCallback, 'connector'>): Promise<{ amount: number; currency: string } | null> {
    const { state } = await loadState(this.deps.store, paymentIntentStream(callback.paymentIntentId), paymentIntentDecider);
    const intent = state.intent;
    const ours = intent && intent.merchantId === callback.merchantId && intent.environment === callback.environment && state.confirmation?.operationId === callback.operationId;
    return ours ? intent : null;
  }

  private async storedPayout(callback: Omit<PayoutCallback, 'connector'>): Promise<{ amount: number; currency: string } | null> {
    const { state } = await loadState(this.deps.store, payoutStream(callback.payoutId), payoutDecider);
    const p = state.payout;
    return p && p.merchantId === callback.merchantId && p.environment === callback.environment ? p : null;
  }

  /** A status check now, of a deposit, payout or refund named by Sika's id. */
  private async recheck(kind: CallbackKind, merchantId: string, environment: Environment, sikaId: string, paymentIntentId: string | undefined): Promise<void> {
    const base = { merchantId, environment, connector: 'pawapay', attempt: 0, prompted: true } as const;
    const now = this.deps.clock.now();
    if (kind === 'deposits' && paymentIntentId) await this.deps.sinks.collectStatusCheck({ ...base, direction: 'collect', paymentIntentId, operationId: sikaId }, now);
    if (kind === 'payouts') await this.deps.sinks.payoutStatusCheck({ ...base, direction: 'payout', payoutId: sikaId }, now);
    if (kind === 'refunds') await this.deps.sinks.refundStatusCheck({ ...base, direction: 'refund', refundId: sikaId }, now);
  }
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
