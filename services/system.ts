import type { Knex } from 'knex';
import { systemClock, type Clock } from '../packages/core/clock.js';
import type { Config } from '../packages/core/config.js';
import type { Database } from '../packages/core/database.js';
import { ProcessInstance } from '../packages/core/instance.js';
import { createLogger, type Logger } from '../packages/core/logger.js';
import { Metrics } from '../packages/core/metrics.js';
import { chainSealer } from '../packages/eventstore/audit-chain.js';
import { MeasuredEventStore } from '../packages/eventstore/measured.js';
import { ApiKeyCache } from '../projections/api-key-cache.js';
import { ApiKeyUsage } from '../packages/http/api-key-usage.js';
import { ApiKeyManagement } from '../packages/domain/merchant/api-keys.js';
import { Billing } from '../packages/domain/billing/service.js';
import { Organizations } from '../packages/domain/organization/commands.js';
import { Accounts } from '../packages/domain/user/commands.js';
import { SignUp } from '../packages/domain/user/signup.js';
import { ContactChanges } from '../packages/domain/user/contact-changes.js';
import type { FactorAttempts } from '../packages/domain/user/factors.js';
import { SecondFactors } from '../packages/domain/user/second-factors.js';
import { SignIns } from '../packages/domain/user/sign-in.js';
import { Passkeys, relyingPartyOf } from '../packages/domain/user/passkeys.js';
import { GoogleSignIn } from '../packages/domain/google-sign-in/service.js';
import { OpenIdClientProvider } from '../packages/providers/openid.js';
import { Verifications } from '../packages/domain/verification/commands.js';
import { KeyedHasher } from '../packages/core/hashing.js';
import { OutboxMessenger } from '../packages/messaging/messenger.js';
import { MerchantSettingsService } from '../packages/domain/merchant-settings/commands.js';
import { TemplateComposer } from '../packages/messaging/composer.js';
import { AppTokenSigner } from '../packages/domain/user/tokens.js';
import { CountryActivations } from '../packages/domain/country-activation/commands.js';
import { FeatureFlags } from '../packages/domain/feature-flag/commands.js';
import { PaymentCapabilities } from '../packages/domain/payment-capability/commands.js';
import { PaymentIntents } from '../packages/domain/payment-intent/commands.js';
import { PaymentRecipients } from '../packages/domain/payment-intent/recipients.js';
import { CheckoutSessions } from '../packages/domain/checkout-session/commands.js';
import { PaymentLinks } from '../packages/domain/payment-link/commands.js';
import { CustomerPortal } from '../packages/domain/customer-portal/commands.js';
import { FundingCampaigns } from '../packages/domain/funding-campaign/commands.js';
import { campaignOfContribution } from '../projections/funding-campaigns.js';
import { findCustomerIdByEmail } from '../projections/customers.js';
import type { EventStore } from '../packages/eventstore/port.js';
import { PostgresEventStore } from '../packages/eventstore/postgres/store.js';
import { IdempotencyStore } from '../packages/http/idempotency.js';
import { publicPushCounter, RateLimiter } from '../packages/http/rate-limit.js';
import { Payouts } from '../packages/domain/payout/commands.js';
import { PayoutBatches } from '../packages/domain/payout-batch/commands.js';
import { PayoutRecipients } from '../packages/domain/payout-recipient/commands.js';
import { CommissionRules } from '../packages/domain/commission-rule/commands.js';
import { SellerPayouts } from '../packages/domain/marketplace-seller/payouts.js';
import { MarketplaceOrders } from '../packages/domain/marketplace-order/commands.js';
import { MarketplaceSellers } from '../packages/domain/marketplace-seller/commands.js';
import { dueSellerShares } from '../projections/marketplace-funds.js';
import { Assets } from '../packages/domain/asset/commands.js';
import { SupportTickets } from '../packages/domain/support-ticket/commands.js';
import { DiskAssetStorage } from '../packages/providers/asset-storage-disk.js';
import { S3AssetStorage } from '../packages/providers/asset-storage-s3.js';
import path from 'node:path';
import { sinksOf } from '../packages/connectors/callbacks.js';
import type { Rails } from '../packages/connectors/port.js';
import { ConnectorRouter } from '../packages/connectors/router.js';
import { SandboxConnector } from '../packages/connectors/sandbox/index.js';
import { enqueue, enqueueMany, Scheduler, type Enqueue } from '../packages/scheduler/scheduler.js';
import { CheckpointedConsumer, type ConsumerSpec } from '../packages/bus/consumer.js';
import { WebhookEndpoints } from '../packages/domain/webhook-endpoint/commands.js';
import { WebhookDispatcher } from '../packages/webhooks/dispatcher.js';
import { EventWaits } from '../packages/webhooks/event-waits.js';
import { Notifier } from '../packages/webhooks/notifier.js';
import { loadSecretsKey, SecretBox } from '../packages/core/secrets.js';
import { Templates } from '../packages/domain/template/commands.js';
import { Automations } from '../packages/domain/automation/commands.js';
import { AutomationRunner } from '../packages/automations/runner.js';
import { findTemplate } from '../projections/templates.js';
import {
  escrowAutoRelease,
  escrowFundingConsumer,
  fundingDeadline,
  fundingPaymentsConsumer,
  fundingPayoutMend,
  invoicePaymentsConsumer,
  ledgerSettlement,
  payinCallback,
  payoutBatchItemsConsumer,
  supportTicketsConsumer,
  assetPurgeConsumer,
  payoutBatchRun,
  payoutCallback,
  payoutOverdue,
  payoutReconcile,
  refundReconcile,
  registerProcesses,
  subscriptionInvoiceDue,
  subscriptionInvoiceIssue,
  subscriptionRenewal,
  walletApplication,
  webhookDelivery,
  automationSchedule,
  automationStep,
  outboxPurge,
  type Process,
} from '../packages/processes/index.js';
import { LIMITS } from '../packages/domain/automation/definition.js';
import { escrowDirectory, readPorts, rememberedGates, rememberedPayoutSettings } from '../projections/read-ports.js';
import { EscrowContracts } from '../packages/domain/escrow/commands.js';
import { ALL_PROJECTIONS, FOLLOWING_PROJECTIONS, INLINE_PROJECTIONS } from '../projections/registry.js';
import type { Projection } from '../projections/projection.js';
import { inlineProjections, ProjectionRunner, rebuildInline, resetForRebuild } from '../projections/runner.js';
import { verifyProjections, type RowDifference } from '../projections/verify.js';
import { registerOperationalGauges } from './metrics.js';
import { createBusConsumerFor, createEventStoreFor, createRelayFor, openMigratedDatabase, ReadYourWritesStore } from './processes.js';
import type { Environment } from '../packages/core/owner.js';

/** Everything a process of the service shares: database, event store, clock, logger, services. */
/** The marketplace's command services (docs/marketplace.md). */
export interface Marketplace {
  commissionRules: CommissionRules;
  sellers: MarketplaceSellers;
  orders: MarketplaceOrders;
  payouts: SellerPayouts;
}

export interface System {
  config: Config;
  db: Database;
  knex: Knex;
  /** Postgres (inline projections) or EventStoreDB (appends wait for the projector: read-your-writes), per EVENT_STORE. */
  store: EventStore;
  /** What GET /metrics serves (docs/operations.md). */
  metrics: Metrics;
  /** Request rate limits shared by every API process (counted in PostgreSQL). */
  rateLimiter: RateLimiter;
  /** The message outbox (packages/messaging): what was sent to whom, and the kept texts, sealed. */
  outbox: OutboxMessenger;
  clock: Clock;
  log: Logger;
  idempotency: IdempotencyStore;
  /** The API keys requests presented, remembered a second at most and forgotten by every process when revoked or rolled. */
  apiKeys: ApiKeyCache;
  /** When each key last authenticated a request (to the minute). */
  apiKeyUsage: ApiKeyUsage;
  /** API keys created, rolled and revoked by signed-in owners and admins. */
  apiKeyManagement: ApiKeyManagement;
  /** The payment gates (capabilities, activations) commands checked, evicted by their events. */
  gates: ReturnType<typeof rememberedGates>['cache'];
  /** The routing table's connectors, by environment and name (reconciliation asks one directly). */
  connectors: ConnectorRouter;
  scheduler: Scheduler;
  /** The bus consumers (webhook dispatch, invoice payments); a scale-out dispatcher process runs them. */
  busConsumers: ConsumerSpec[];
  paymentIntents: PaymentIntents;
  /** Hosted checkout: sessions and the payment links that open them (docs/checkout.md). */
  checkoutSessions: CheckoutSessions;
  /** Marks the browser that paid or canceled a checkout session on its hosted page: only it is sent on to the merchant's URLs. */
  checkoutBrowserMarks: KeyedHasher;
  paymentLinks: PaymentLinks;
  /** The customer portal's sign-in by e-mailed code. */
  customerPortal: CustomerPortal;
  payouts: Payouts;
  /** Payout settings: lowering the safety delay of saved destinations takes a second factor. */
  merchantSettings: MerchantSettingsService;
  /** The payout engine: saved recipients and payout batches (docs/payout-engine.md). */
  payoutRecipients: PayoutRecipients;
  payoutBatches: PayoutBatches;
  /** The marketplace: commission rules, sellers, orders, refunds and settlements (docs/marketplace.md). */
  marketplace: Marketplace;
  /** Escrow contracts, their releases and disputes (docs/escrow.md). */
  escrow: EscrowContracts;
  /** What each merchant may use, over the catalog's defaults (docs/payment-capabilities.md). */
  paymentCapabilities: PaymentCapabilities;
  /** Country activations and platform feature flags (docs/configuration.md). */
  countryActivations: CountryActivations;
  featureFlags: FeatureFlags;
  webhookEndpoints: WebhookEndpoints;
  webhooks: WebhookDispatcher;
  /** The events API's long polls, woken by the dispatcher's notifications, within their slots. */
  eventWaits: EventWaits;
  /** Customers, products, subscriptions, invoices, refunds (docs/billing.md). */
  billing: Billing;
  /** Funding campaigns and their contributions (docs/funding.md). */
  funding: FundingCampaigns;
  /** Dashboard users: accounts, sign-in, sessions and AppTokens (docs/auth.md). */
  accounts: Accounts;
  organizations: Organizations;
  /** Pre-signup codes by e-mail and SMS. */
  verifications: Verifications;
  /** Sign-up and joining by invitation. */
  signUp: SignUp;
  /** Second-factor challenges, the authenticator app, sign-in with a second factor. */
  secondFactors: SecondFactors;
  signIns: SignIns;
  /** WebAuthn credentials: registration, assertions, passwordless sign-in. */
  passkeys: Passkeys;
  /** E-mail, phone and password changes behind a second factor. */
  contactChanges: ContactChanges;
  /** Sign-in with Google, and connecting a Google account (GOOGLE_*; unconfigured: IKW-FED-001). */
  google: GoogleSignIn;
  /** Merchants' files, on the disk or in an S3-compatible bucket (docs/assets.md). */
  assets: Assets;
  /** Support requests: recorded, then e-mailed to SUPPORT_EMAIL (docs/support.md). */
  supportTickets: SupportTickets;
  /** The template engine's templates (docs/template-engine.md), and the writer of the service's messages and documents from them. */
  templates: Templates;
  templateComposer: TemplateComposer;
  /** Automations and their runner (docs/automations.md). */
  automations: Automations;
  automationRunner: AutomationRunner;
  /** Starts the bus consumers, the relay (BUS=kafka), the projector (the projections that follow the log; all of them with EVENT_STORE=esdb) and, unless told not to, the scheduler's polling loop. */
  startBackground(options?: { schedulerLoop?: boolean }): Promise<void>;
  /** Waits until the bus consumers have caught up and no scheduled job is due (tests, CLI). */
  drain(): Promise<void>;
  /** Rebuilds the named read models (all when empty) from position zero; returns events applied. */
  rebuildProjections(names?: string[]): Promise<number>;
  /** Rebuilds every read model into a shadow schema and lists the rows where the named ones (all when empty) differ. */
  verifyProjections(names?: string[]): Promise<RowDifference[]>;
  close(): Promise<void>;
}

export interface SystemOptions {
  clock?: Clock;
  log?: Logger;
  poolMax?: number;
  /** Wraps the rails of an environment (tests count or hold connector calls). */
  rails?: (environment: Environment, routed: Rails) => Rails;
  /** Whole-attempt deadline of a webhook delivery (15 s; tests use less). */
  webhookTimeoutMs?: number;
  /** Whole-request deadline of an automation's http_request step (10 s; tests use less). */
  automationHttpTimeoutMs?: number;
}

/** The read models of these names (all when none is named); an unknown name is an error that lists the known ones. */
function projectionsNamed(names: readonly string[]): readonly Projection[] {
  const unknown = names.filter((n) => !ALL_PROJECTIONS.some((p) => p.name === n));
  if (unknown.length > 0) throw new Error(`Unknown projection(s): ${unknown.join(', ')}; known: ${ALL_PROJECTIONS.map((p) => p.name).join(', ')}`);
  return names.length === 0 ? ALL_PROJECTIONS : ALL_PROJECTIONS.filter((p) => names.includes(p.name));
}

/** The composition root: opens the database (embedded or DATABASE_URL), migrates, wires every part. */
export async function openSystem(config: Config, options: SystemOptions = {}): Promise<System> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const db = await openMigratedDatabase(config, log, options.poolMax);
  const knex = db.knex;
  // Postgres runs the projections in the append's transaction, but for those that follow the log.
  // EventStoreDB cannot: its appends wait until the projector (this process's in standalone mode,
  // else services/projector) applied them. Projections that follow the log are the projector's.
  const postgres = config.eventStore === 'postgres';
  const logStore = createEventStoreFor(config, db, postgres ? { inline: inlineProjections(INLINE_PROJECTIONS) } : {});
  const metrics = new Metrics();
  const apiKeys = new ApiKeyCache(knex, logStore, db.notifications, clock);
  const store: EventStore = new MeasuredEventStore(
    postgres ? logStore : new ReadYourWritesStore(logStore, knex, INLINE_PROJECTIONS.map((p) => p.name), { log }),
    metrics,
  );
  const following = postgres ? FOLLOWING_PROJECTIONS : ALL_PROJECTIONS;
  const projector = following.length > 0 ? new ProjectionRunner(knex, logStore, following, log) : null;
  const relay = createRelayFor(config, { knex, store: logStore, log });
  // Folds the log into the global hash chain in commit order, whatever the bus (docs/audit.md).
  const sealer = new CheckpointedConsumer(knex, logStore, chainSealer(), log);
  const instance = await ProcessInstance.start(db.url, log);
  const scheduler = new Scheduler(knex, clock, log, 16, instance);

  const enqueuer = <P extends object>(process: Process<P>): Enqueue<P> => scheduler.enqueuer(process.job);

  const callbackSinks = { collect: enqueuer(payinCallback), payout: enqueuer(payoutCallback) };
  // The routing table: the sandbox simulator carries every sandbox rail; no live connector is
  // configured yet, so live is refused with IKW-PRV-001 (docs/connectors.md).
  const router = new ConnectorRouter([{ environment: 'sandbox', connector: new SandboxConnector(clock, config.sandboxOperatorDelayMs, config.publicUrl, sinksOf('sandbox', callbackSinks)) }]);
  const rails = { sandbox: router.rails('sandbox'), live: router.rails('live') };
  const railsOf = (env: Environment): Rails => (options.rails ? options.rails(env, rails[env]) : rails[env]);

  const gates = rememberedGates(readPorts(knex), logStore);
  const reads = gates.reads;
  const payoutSettings = rememberedPayoutSettings(knex, logStore);
  // This process's commits evict its caches at once (other processes' reach them through the log).
  if (logStore instanceof PostgresEventStore) {
    logStore.onCommitted((events) => {
      apiKeys.evict(events);
      gates.cache.evict(events);
      payoutSettings.cache.evict(events);
    });
  }
  const escrowReads = escrowDirectory(knex);
  // Filled once the families that hold or split payments are built (below).
  const paymentRecipients = new PaymentRecipients();
  const paymentIntents = new PaymentIntents({
    customers: reads,
    store,
    clock,
    rails: railsOf,
    capabilities: reads,
    activations: reads,
    publicUrl: config.publicUrl,
    defaultReturnUrl: async (merchantId, environment) => (await payoutSettings.payoutSettings(merchantId, environment)).defaultReturnUrl,
    settlementDelayMs: (env) => (env === 'sandbox' ? 0 : config.settlementDelayMs),
    scheduleSettlement: enqueuer(ledgerSettlement),
    instance,
    recipients: paymentRecipients,
  });
  const paymentLinks = new PaymentLinks({ store, clock, publicUrl: config.publicUrl });
  const rateLimiter = new RateLimiter(knex, clock);
  const countPublicPush = publicPushCounter(rateLimiter, config.pushLimits);
  const checkoutSessions = new CheckoutSessions({ store, clock, publicUrl: config.publicUrl, paymentIntents, paymentLinks, countPublicPush });
  const payouts = new Payouts({
    store,
    clock,
    log,
    rails: railsOf,
    capabilities: reads,
    activations: reads,
    history: reads,
    settings: (owner) => payoutSettings.payoutSettings(owner.merchantId, owner.environment),
    // Declared below (it sends codes with the messenger): a user's challenge is used up in the payout's commit.
    verifications: { consumption: (...args) => verifications.consumption(...args) },
    scheduleOverdueCheck: enqueuer(payoutOverdue),
    scheduleReconcile: enqueuer(payoutReconcile),
  });
  const payoutRecipients = new PayoutRecipients({ store, clock });
  const payoutBatches = new PayoutBatches({ store, clock, payouts, recipients: payoutRecipients, scheduleRun: enqueuer(payoutBatchRun) });
  const commissionRules = new CommissionRules({ store, clock });
  const marketplaceSellers = new MarketplaceSellers({ store, clock });
  const marketplace: Marketplace = {
    commissionRules,
    sellers: marketplaceSellers,
    orders: new MarketplaceOrders({
      store,
      clock,
      paymentIntents,
      sellers: marketplaceSellers,
      commissionRules,
      dueShares: { dueShares: (owner, currency, at, limit) => dueSellerShares(knex, owner, currency, at, limit) },
    }),
    payouts: new SellerPayouts({ payouts, sellers: marketplaceSellers }),
  };
  const escrow: EscrowContracts = new EscrowContracts({ store, clock, payouts, directory: escrowReads, scheduleAutoRelease: enqueuer(escrowAutoRelease) });

  const secretsKey = loadSecretsKey(config.secretsKey, config.dataDir);
  const secretBox = new SecretBox(secretsKey);
  // No SMS provider is reachable from here: SMS stay in the outbox (packages/messaging), where a gateway would plug in.
  // The service's own messages, written from templates, restyled by merchants' (docs/template-engine.md).
  const composer = new TemplateComposer(knex, log);
  const messenger = new OutboxMessenger({
    knex,
    clock,
    log,
    smtpUrl: config.smtpUrl,
    sms: null,
    composer,
    box: secretBox,
    retention: config.outboxRetention,
    enqueuePurge: (p, runAt) => enqueue(knex, outboxPurge.job, p, runAt),
  });
  const accounts = new Accounts({ store, clock, tokens: new AppTokenSigner(clock, secretsKey), directory: reads, messenger, publicUrl: config.publicUrl });
  const organizations = new Organizations({
    store,
    clock,
    directory: reads,
    sessions: accounts,
    messenger,
    publicUrl: config.publicUrl,
    countInvitation: async (organizationId, inviterId) => {
      const { perOrganization, perInviter } = config.invitationLimits;
      await rateLimiter.take([
        ...(perOrganization ? [{ key: `invitation:organization:${organizationId}`, rule: perOrganization }] : []),
        ...(perInviter ? [{ key: `invitation:inviter:${inviterId}`, rule: perInviter }] : []),
      ]);
    },
    organizationsPerUser: config.organizationsPerUser,
  });
  const verifications: Verifications = new Verifications({
    store,
    clock,
    codes: new KeyedHasher(secretsKey, 'sika:verification-codes:v1'),
    messenger,
    accountExists: async (email) => (await accounts.userIdOf(email)) !== null,
  });
  const customerPortal = new CustomerPortal({
    store,
    clock,
    customerByEmail: (owner, email) => findCustomerIdByEmail(knex, owner, email),
    codes: new KeyedHasher(secretsKey, 'sika:customer-portal-codes:v1'),
    messenger,
    countCodeRequest: async (owner) => {
      const rule = config.customerPortalCodeLimit;
      if (rule) await rateLimiter.take([{ key: `portal-code:${owner.merchantId}:${owner.environment}`, rule }]);
    },
  });
  const secondFactorRule = config.secondFactorLimit;
  const factorAttempts: FactorAttempts = {
    count: (userId) => (secondFactorRule ? rateLimiter.attempt({ key: `second-factor:${userId}`, rule: secondFactorRule }) : Promise.resolve({ succeeded: async () => undefined })),
  };
  const passkeys = new Passkeys({ clock, accounts, verifications, messenger, rp: relyingPartyOf(config.publicUrl), attempts: factorAttempts });
  const secondFactors = new SecondFactors({ clock, accounts, verifications, box: secretBox, recoveryCodes: new KeyedHasher(secretsKey, 'sika:recovery-codes:v1'), passkeys, messenger, attempts: factorAttempts });
  const signIns = new SignIns({ accounts, secondFactors, passkeys, verifications });
  const google = new GoogleSignIn({
    store,
    clock,
    accounts,
    signIns,
    verifications,
    messenger,
    box: secretBox,
    provider: config.google ? new OpenIdClientProvider(config.google, log) : null,
    publicUrl: config.publicUrl,
    returnOrigins: config.google?.returnOrigins ?? [],
  });
  const templates = new Templates({ store, clock });
  const webhookEndpoints = new WebhookEndpoints(store, clock, secretBox, config.webhookAllowedPrivateRanges);
  const assetStorage = config.assetsS3
    ? new S3AssetStorage({ ...config.assetsS3, spoolDir: path.join(config.dataDir, 'assets-spool') })
    : new DiskAssetStorage(path.join(config.dataDir, 'assets'));
  const assets = new Assets({
    store,
    clock,
    storage: assetStorage,
    signer: new KeyedHasher(secretsKey, 'sika:asset-urls:v1'),
    publicUrl: config.publicUrl,
    maxBytes: config.assetsMaxBytes,
  });
  const notifier = new Notifier(knex, clock, config.smtpUrl, log, composer);
  const webhooks = new WebhookDispatcher({
    knex,
    enqueueDeliveries: (db, jobs) => enqueueMany(db, webhookDelivery.job, jobs),
    clock,
    log,
    box: secretBox,
    endpoints: webhookEndpoints,
    notifier,
    retryScheduleMs: config.webhookRetryScheduleMs,
    allowedPrivateRanges: config.webhookAllowedPrivateRanges,
    timeoutMs: options.webhookTimeoutMs ?? 15_000,
  });

  const billing = new Billing({
    reads,
    store,
    clock,
    publicUrl: config.publicUrl,
    paymentIntents,
    recipients: paymentRecipients,
    jobs: {
      renew: enqueuer(subscriptionRenewal),
      issueInvoice: enqueuer(subscriptionInvoiceIssue),
      invoiceDue: enqueuer(subscriptionInvoiceDue),
      walletApplication: enqueuer(walletApplication),
      refundReconcile: enqueuer(refundReconcile),
    },
  });
  const funding: FundingCampaigns = new FundingCampaigns({
    store,
    clock,
    publicUrl: config.publicUrl,
    paymentIntents,
    payouts,
    campaignOfContribution: (owner, id) => campaignOfContribution(knex, owner, id),
    scheduleDeadline: enqueuer(fundingDeadline),
    schedulePayoutMend: enqueuer(fundingPayoutMend),
    countPublicPush,
  });
  // Funding campaigns hold their contributions' payments, marketplace orders split theirs, escrow contracts take theirs.
  paymentRecipients.register(funding.paymentRecipient, marketplace.orders.paymentRecipient, escrow.paymentRecipient);
  const automations = new Automations({
    store,
    clock,
    box: secretBox,
    allowedPrivateRanges: config.webhookAllowedPrivateRanges,
    templateKind: async (owner, id) => (await findTemplate(knex, owner, id))?.kind,
  });
  const automationRunner = new AutomationRunner({
    knex,
    clock,
    log,
    box: secretBox,
    automations,
    messenger,
    notifier,
    payouts,
    billing,
    enqueueStep: (db, job, runAt) => enqueue(db, automationStep.job, job, runAt),
    enqueueTick: (db, job, runAt) => enqueue(db, automationSchedule.job, job, runAt),
    allowedPrivateRanges: config.webhookAllowedPrivateRanges,
    httpTimeoutMs: options.automationHttpTimeoutMs ?? LIMITS.httpTimeoutMs,
    smtpConfigured: config.smtpUrl !== null,
    countSend: async (owner, to) => {
      const { automationSendLimit: perMerchant, automationRecipientLimit: perRecipient } = config;
      await rateLimiter.take([
        ...(perMerchant ? [{ key: `automation-send:${owner.merchantId}:${owner.environment}`, rule: perMerchant }] : []),
        ...(perRecipient ? [{ key: `automation-send:${owner.merchantId}:${owner.environment}:${to}`, rule: perRecipient }] : []),
      ]);
    },
  });
  // What acts on events outside the database: webhook deliveries, invoice payments by payment
  // intent, batch items' payouts, support tickets, asset purges, escrow funding, contributions'
  // payments, automations.
  const supportTickets = new SupportTickets({ store, clock, messenger, supportEmail: config.supportEmail });
  const busConsumers = [
    webhooks.consumer(),
    invoicePaymentsConsumer(clock),
    payoutBatchItemsConsumer(clock),
    supportTicketsConsumer(clock),
    assetPurgeConsumer(clock),
    escrowFundingConsumer(clock),
    fundingPaymentsConsumer(clock),
    automationRunner.consumer(),
  ];
  const consumers = busConsumers.map((spec) => createBusConsumerFor(config, { knex, store: logStore, log }, spec));
  registerProcesses(scheduler, { store, clock, paymentIntents, payouts, payoutBatches, billing, webhooks, supportTickets, assets, escrow, funding, automationRunner, outbox: messenger });
  registerOperationalGauges(metrics, { knex, clock, consumers: busConsumers.map((c) => c.name), postgresLog: config.eventStore === 'postgres' && config.bus === 'postgres' });

  return {
    config,
    db,
    knex,
    store,
    metrics,
    rateLimiter,
    outbox: messenger,
    clock,
    log,
    idempotency: new IdempotencyStore(knex, clock, config.idempotencyTtlMs, secretBox, instance),
    apiKeys,
    gates: gates.cache,
    connectors: router,
    scheduler,
    busConsumers,
    paymentIntents,
    checkoutSessions,
    checkoutBrowserMarks: new KeyedHasher(secretsKey, 'sika:checkout-browser:v1'),
    paymentLinks,
    customerPortal,
    payouts,
    merchantSettings: new MerchantSettingsService({ store, clock, verifications, messenger, directory: reads }),
    apiKeyUsage: new ApiKeyUsage(knex, clock),
    apiKeyManagement: new ApiKeyManagement({ store, clock, accounts, verifications, messenger, directory: reads }),
    payoutRecipients,
    payoutBatches,
    marketplace,
    escrow,
    paymentCapabilities: new PaymentCapabilities({ store, clock }),
    countryActivations: new CountryActivations({ store, clock }),
    featureFlags: new FeatureFlags({ store, clock }),
    webhookEndpoints,
    webhooks,
    eventWaits: new EventWaits({ knex, notifications: db.notifications, clock, instanceId: instance.id, limits: config.eventWaits }),
    billing,
    funding,
    accounts,
    organizations,
    verifications,
    signUp: new SignUp({ store, clock, accounts, organizations, verifications, signIns }),
    secondFactors,
    signIns,
    passkeys,
    google,
    contactChanges: new ContactChanges({ clock, accounts, verifications, messenger, publicUrl: config.publicUrl }),
    assets,
    supportTickets,
    templates,
    templateComposer: composer,
    automations,
    automationRunner,
    startBackground: async ({ schedulerLoop = true } = {}) => {
      await projector?.start();
      await sealer.start();
      await relay?.start();
      for (const consumer of consumers) await consumer.start();
      await messenger.schedulePurge();
      if (schedulerLoop) scheduler.start();
    },
    drain: async () => {
      // Jobs append events that the dispatcher turns into more jobs: loop until both are idle.
      for (let round = 0; round < 50; round++) {
        await projector?.caughtUp();
        await sealer.caughtUp();
        await relay?.caughtUp();
        for (const consumer of consumers) await consumer.caughtUp();
        if ((await scheduler.runUntilIdle()) === 0) return;
      }
    },
    rebuildProjections: async (names = []) => {
      const chosen = projectionsNamed(names);
      // Projections that follow the log: empty their tables and checkpoints; the projector rebuilds them from position zero.
      await resetForRebuild(knex, chosen.filter((p) => following.includes(p)));
      const inline = chosen.filter((p) => !following.includes(p));
      if (inline.length === 0 || !(logStore instanceof PostgresEventStore)) return 0;
      return rebuildInline(knex, inline, (trx, after, limit) => logStore.readCommitted(trx, after, limit));
    },
    verifyProjections: async (names = []) => {
      const chosen = projectionsNamed(names);
      // With EventStoreDB no snapshot holds both the log and the read models.
      if (!(logStore instanceof PostgresEventStore)) throw new Error('projections verify needs the Postgres event store (EVENT_STORE=postgres)');
      return verifyProjections(knex, db.url, ALL_PROJECTIONS, chosen, (trx, after, limit) => logStore.readCommitted(trx, after, limit));
    },
    close: async () => {
      await scheduler.stop();
      await instance.stop();
      // Side by side: each may wait for a fetch in flight (a Kafka consumer's long poll).
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await relay?.stop();
      await sealer.stop();
      await projector?.stop();
      notifier.close();
      messenger.close();
      webhooks.close();
      if (assetStorage instanceof S3AssetStorage) assetStorage.close();
      await store.close();
      await db.close();
    },
  };
}
