import type { Knex } from 'knex';
import { systemClock, type Clock } from '../packages/core/clock.js';
import type { Config } from '../packages/core/config.js';
import { openDatabase, type Database } from '../packages/core/database.js';
import { createLogger, type Logger } from '../packages/core/logger.js';
import { Billing } from '../packages/domain/billing/service.js';
import { AppTokens } from '../packages/domain/user/commands.js';
import { runLedger } from '../packages/domain/ledger/commands.js';
import type { Environment } from '../packages/domain/merchant/events.js';
import { PaymentIntents } from '../packages/domain/payment-intent/commands.js';
import type { EventStore } from '../packages/eventstore/port.js';
import { PostgresEventStore } from '../packages/eventstore/postgres/store.js';
import { IdempotencyStore } from '../packages/http/idempotency.js';
import { Payouts } from '../packages/domain/payout/commands.js';
import type { PayinCallback, PaymentProvider, PayoutCallback } from '../packages/providers/port.js';
import { SandboxProvider, UnconfiguredLiveProvider } from '../packages/providers/sandbox.js';
import { Scheduler } from '../packages/scheduler/scheduler.js';
import { CheckpointedConsumer } from '../packages/bus/consumer.js';
import { WebhookEndpoints } from '../packages/domain/webhook-endpoint/commands.js';
import { JOB_WEBHOOK_DELIVER, WebhookDispatcher } from '../packages/webhooks/dispatcher.js';
import { Notifier } from '../packages/webhooks/notifier.js';
import { loadSecretsKey, SecretBox } from '../packages/core/secrets.js';
import { migrate } from '../infra/migrations.js';
import { readPayoutSettings } from '../projections/payout-settings.js';
import { readPorts } from '../projections/read-ports.js';
import { ALL_PROJECTIONS } from '../projections/registry.js';
import { inlineProjections, ProjectionRunner, rebuildInline, resetForRebuild } from '../projections/runner.js';
import { createBusConsumerFor, createEventStoreFor, createRelayFor, ReadYourWritesStore } from './processes.js';

/** Everything a process of the service shares: database, event store, clock, logger, services. */
export interface System {
  config: Config;
  db: Database;
  knex: Knex;
  /** Postgres (inline projections) or EventStoreDB (appends wait for the projector: read-your-writes), per EVENT_STORE. */
  store: EventStore;
  clock: Clock;
  log: Logger;
  idempotency: IdempotencyStore;
  scheduler: Scheduler;
  paymentIntents: PaymentIntents;
  payouts: Payouts;
  webhookEndpoints: WebhookEndpoints;
  webhooks: WebhookDispatcher;
  /** Customers, products, subscriptions, invoices, refunds (docs/billing.md). */
  billing: Billing;
  /** Dashboard users' sign-in and AppTokens. */
  appTokens: AppTokens;
  /** Starts the bus consumers, the relay (BUS=kafka), the projector (EVENT_STORE=esdb) and, unless told not to, the scheduler's polling loop. */
  startBackground(options?: { schedulerLoop?: boolean }): Promise<void>;
  /** Waits until the bus consumers have caught up and no scheduled job is due (tests, CLI). */
  drain(): Promise<void>;
  /** Rebuilds the named read models (all when empty) from position zero; returns events applied. */
  rebuildProjections(names?: string[]): Promise<number>;
  close(): Promise<void>;
}

export interface SystemOptions {
  clock?: Clock;
  log?: Logger;
  poolMax?: number;
  /** Replaces the connector of an environment (tests count or hold provider calls). */
  provider?: (environment: Environment, sandbox: PaymentProvider) => PaymentProvider;
  /** Whole-attempt deadline of a webhook delivery (15 s; tests use less). */
  webhookTimeoutMs?: number;
}

const JOB_PAYIN_CALLBACK = 'payin.callback';
const JOB_PAYOUT_CALLBACK = 'payout.callback';
const JOB_PAYOUT_OVERDUE = 'payout.overdue';
const JOB_PAYOUT_RECONCILE = 'payout.reconcile';
const JOB_LEDGER_SETTLE = 'ledger.settle';

/** The composition root: opens the database (embedded or DATABASE_URL), migrates, wires every part. */
export async function openSystem(config: Config, options: SystemOptions = {}): Promise<System> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: options.poolMax, log });
  try {
    const applied = await migrate(db.knex);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
  } catch (err) {
    await db.close();
    throw err;
  }
  const knex = db.knex;
  // Postgres runs the projections in the append's transaction. EventStoreDB cannot: its appends
  // wait until the projector (this process's in standalone mode, else services/projector) applied them.
  const logStore = createEventStoreFor(config, db, config.eventStore === 'postgres' ? { inline: inlineProjections(ALL_PROJECTIONS) } : {});
  const store: EventStore =
    config.eventStore === 'esdb' ? new ReadYourWritesStore(logStore, knex, ALL_PROJECTIONS.map((p) => p.name), { log }) : logStore;
  const projector = config.eventStore === 'esdb' ? new ProjectionRunner(knex, logStore, ALL_PROJECTIONS, log) : null;
  const relay = createRelayFor(config, { knex, store: logStore, log });
  const scheduler = new Scheduler(knex, clock, log);

  const sandbox = new SandboxProvider(clock, config.sandboxOperatorDelayMs, config.publicUrl, {
    payin: (callback, at) => scheduler.schedule({ kind: JOB_PAYIN_CALLBACK, key: `payin:${callback.operationId}`, runAt: at, payload: { ...callback } }),
    payout: (callback, at) =>
      scheduler.schedule({ kind: JOB_PAYOUT_CALLBACK, key: `payout:${callback.payoutId}:${callback.report.type}:${at.getTime()}`, runAt: at, payload: { ...callback } }),
  });
  const live = new UnconfiguredLiveProvider();
  const providerFor = (env: Environment): PaymentProvider => {
    const base = env === 'sandbox' ? sandbox : live;
    return options.provider ? options.provider(env, base) : base;
  };

  const reads = readPorts(knex);
  const paymentIntents = new PaymentIntents({
    customers: reads,
    store,
    clock,
    provider: providerFor,
    publicUrl: config.publicUrl,
    defaultReturnUrl: async (merchantId, environment) => (await readPayoutSettings(knex, merchantId, environment)).settings.defaultReturnUrl,
    settlementDelayMs: (env) => (env === 'sandbox' ? 0 : config.settlementDelayMs),
    scheduleSettlement: (merchantId, environment, currency, at) =>
      scheduler.schedule({
        kind: JOB_LEDGER_SETTLE,
        key: `settle:${merchantId}:${environment}:${currency}:${at.toISOString()}`,
        runAt: at,
        payload: { merchantId, environment, currency },
      }),
  });

  const payouts = new Payouts({
    store,
    clock,
    log,
    provider: providerFor,
    scheduleOverdueCheck: (p, at) => scheduler.schedule({ kind: JOB_PAYOUT_OVERDUE, key: `overdue:${p.payoutId}`, runAt: at, payload: { ...p } }),
    scheduleReconcile: (p, at) => scheduler.schedule({ kind: JOB_PAYOUT_RECONCILE, key: `reconcile:${p.payoutId}`, runAt: at, payload: { ...p } }),
  });
  type PayoutRef = { merchantId: string; environment: Environment; payoutId: string };
  scheduler.register(JOB_PAYOUT_CALLBACK, async (job) => {
    await payouts.applyCallback(job.payload as unknown as PayoutCallback, 'provider:sandbox');
  });
  scheduler.register(JOB_PAYOUT_OVERDUE, (job) => payouts.checkOverdue(job.payload as PayoutRef));
  scheduler.register(JOB_PAYOUT_RECONCILE, (job) => payouts.reconcile(job.payload as PayoutRef & { currency: string }));

  const secretsKey = loadSecretsKey(config.secretsKey, config.dataDir);
  const secretBox = new SecretBox(secretsKey);
  const webhookEndpoints = new WebhookEndpoints(store, clock, secretBox, config.webhookAllowPrivateUrls);
  const notifier = new Notifier(knex, clock, config.smtpUrl, log);
  const webhooks = new WebhookDispatcher({
    knex,
    clock,
    log,
    box: secretBox,
    endpoints: webhookEndpoints,
    notifier,
    retryScheduleMs: config.webhookRetryScheduleMs,
    allowPrivateUrls: config.webhookAllowPrivateUrls,
    timeoutMs: options.webhookTimeoutMs ?? 15_000,
  });
  scheduler.register(JOB_WEBHOOK_DELIVER, (job) => webhooks.deliver((job.payload as { deliveryId: string }).deliveryId));
  const dispatchConsumer = createBusConsumerFor(config, { knex, store: logStore, log }, webhooks.consumer());

  scheduler.register(JOB_PAYIN_CALLBACK, async (job) => {
    await paymentIntents.applyCallback(job.payload as unknown as PayinCallback, 'provider:sandbox');
  });
  scheduler.register(JOB_LEDGER_SETTLE, async (job) => {
    const { merchantId, environment, currency } = job.payload as { merchantId: string; environment: Environment; currency: string };
    await runLedger(store, clock, merchantId, environment, currency, { type: 'settle_due' }, { merchant_id: merchantId, environment, actor: 'scheduler', occurred_at: clock.now().toISOString() });
  });

  const billing = new Billing({ reads, store, clock, publicUrl: config.publicUrl, paymentIntents, schedule: (job) => scheduler.schedule(job) });
  for (const [kind, handler] of billing.jobs()) scheduler.register(kind, handler);
  const billingConsumer = new CheckpointedConsumer(knex, logStore, billing.paymentsConsumer(), log);

  return {
    config,
    db,
    knex,
    store,
    clock,
    log,
    idempotency: new IdempotencyStore(knex, clock, config.idempotencyTtlMs),
    scheduler,
    paymentIntents,
    payouts,
    webhookEndpoints,
    webhooks,
    billing,
    appTokens: new AppTokens(store, clock, secretsKey),
    startBackground: async ({ schedulerLoop = true } = {}) => {
      await projector?.start();
      await relay?.start();
      await dispatchConsumer.start();
      await billingConsumer.start();
      if (schedulerLoop) scheduler.start();
    },
    drain: async () => {
      // Jobs append events that the dispatcher turns into more jobs: loop until both are idle.
      for (let round = 0; round < 50; round++) {
        await projector?.caughtUp();
        await relay?.caughtUp();
        await dispatchConsumer.caughtUp();
        await billingConsumer.caughtUp();
        if ((await scheduler.runUntilIdle()) === 0) return;
      }
    },
    rebuildProjections: async (names = []) => {
      const unknown = names.filter((n) => !ALL_PROJECTIONS.some((p) => p.name === n));
      if (unknown.length > 0) throw new Error(`Unknown projection(s): ${unknown.join(', ')}; known: ${ALL_PROJECTIONS.map((p) => p.name).join(', ')}`);
      const chosen = names.length === 0 ? ALL_PROJECTIONS : ALL_PROJECTIONS.filter((p) => names.includes(p.name));
      if (logStore instanceof PostgresEventStore) return rebuildInline(knex, chosen, (trx, after, limit) => logStore.readCommitted(trx, after, limit));
      // Asynchronous projections: empty their tables and checkpoints; the projector rebuilds them from position zero.
      await resetForRebuild(knex, chosen);
      return 0;
    },
    close: async () => {
      await scheduler.stop();
      await dispatchConsumer.stop();
      await billingConsumer.stop();
      await relay?.stop();
      await projector?.stop();
      notifier.close();
      await store.close();
      await db.close();
    },
  };
}
