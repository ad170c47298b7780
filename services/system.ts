import { systemClock, type Clock } from '#packages/core/clock.js';
import type { ServiceConfig } from './config.js';
import { ProcessInstance } from '#packages/core/instance.js';
import { createKnex } from '#packages/core/database.js';
import { Ledger } from '#packages/ledger/decider.js';
import { createLogger, type Logger } from '#packages/core/logger.js';
import { Metrics } from '#packages/core/metrics.js';
import type { Environment } from '#packages/core/owner.js';
import { loadSecretsKey, SecretBox } from '#packages/core/secrets.js';
import { chainSealer } from '#packages/eventstore/audit-chain.js';
import { MeasuredEventStore } from '#packages/eventstore/measured.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { CHECKPOINT_DEFER_MS, type ConsumerSpec } from '#packages/bus/consumer.js';
import type { RailInbound, Rails } from '#packages/connectors/port.js';
import { ApiKeyUsage } from '#packages/http/api-key-usage.js';
import { IdempotencyStore } from '#packages/http/idempotency.js';
import { publicPushCounter, RateLimiter } from '#packages/http/rate-limit.js';
import { TemplateComposer } from '#packages/families/templates/composer.js';
import { OutboxMessenger } from '#packages/messaging/messenger.js';
import { registerProcesses } from '#packages/processes/index.js';
import type { Process } from '#packages/processes/process.js';
import { enqueue, Scheduler, type Enqueue, type Unschedule } from '#packages/scheduler/scheduler.js';
import { Notifier } from '#packages/webhooks/notifier.js';
import {
  CHART,
  disputeRead,
  LEDGER_PARTS,
  openFamilies,
  outboxPurge,
  payinCallback,
  payinStatusCheck,
  payoutCallback,
  payoutStatusCheck,
  refundCallback,
  refundStatusCheck,
  PROCESSES,
  PUBLIC_EVENTS,
  type FamilyApis,
  type Kernel,
} from '#packages/families/index.js';
import { verifiedTeamContacts } from '#packages/families/accounts/read/index.js';
import { ApiKeyCache } from '#packages/families/merchants/read/api-key-cache.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import type { Projection } from '#packages/read-models/projection.js';
import { readPorts, rememberedGates, rememberedPayoutSettings } from '#packages/families/read-port-adapters.js';
import { ALL_PROJECTIONS, FOLLOWING_PROJECTIONS, INLINE_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { inlineProjections, projectionConsumers, rebuildInline, resetForRebuild } from '#packages/read-models/runner.js';
import { verifyProjections, type RowDifference } from '#packages/read-models/verify.js';
import { registerOperationalGauges } from './metrics.js';
import { openRails, railChoices } from './rails.js';
import { savedCardsOf } from './rail-recipients.js';
import type { EdgeServices } from '#packages/families/family.js';
import type { RailFloatBoard } from './rail-float.js';
import type { RailHealthBoard } from './rail-health.js';
import type { ConnectorRouter } from '#packages/connectors/router.js';
import { createConsumersFor, createEventStoreFor, createRelayFor, openMigratedDatabase, ReadYourWritesStore } from './processes.js';

export type { Marketplace } from '#packages/families/index.js';

/** What a process of the service shares: the kernel, every family's services (packages/families/index.ts), its lifecycle. */
export type System = Kernel &
  FamilyApis &
  EdgeServices & {
    /** The service's configuration: the kernel's settings and the rails' (services/config.ts). */
    config: ServiceConfig;
    /** The API keys requests presented, remembered a second at most and forgotten by every process when revoked or rolled (the edge's credentials). */
    apiKeys: ApiKeyCache;
    /** The bus consumers the families declare; a scale-out dispatcher process runs them. */
    busConsumers: ConsumerSpec[];
    /** The payment gates (capabilities, activations) commands checked, evicted by their events. */
    gates: ReturnType<typeof rememberedGates>['cache'];
    /** Each rail's receiving of its news (POST /connectors/pawapay/…), verified and matched before it reaches a payment or payout. */
    railInbound: readonly RailInbound[];
    /** The routing table's connectors, by environment and name (reconciliation asks one directly). */
    connectors: ConnectorRouter;
    /** The rails' measured health the router reads (docs/connectors.md, "Health"); `refresh()` reads it again now. */
    railHealth: RailHealthBoard;
    /** What the rails' wallets hold for payouts, as the router reads it (docs/connectors.md, "Float"). */
    railFloat: RailFloatBoard;
    /** Starts the bus consumers, the relay (BUS=kafka), the projector (the projections that follow the log; all of them with EVENT_STORE=esdb) and, unless told not to, the scheduler's polling loop. */
    startBackground(options?: { schedulerLoop?: boolean }): Promise<void>;
    /** Waits until the bus consumers have caught up and no scheduled job is due (tests, CLI). */
    drain(): Promise<void>;
    /** Rebuilds the named read models (all when empty) from position zero; returns events applied. */
    rebuildProjections(names?: string[]): Promise<number>;
    /** Rebuilds every read model into a shadow schema and lists the rows where the named ones (all when empty) differ. */
    verifyProjections(names?: string[]): Promise<RowDifference[]>;
    close(): Promise<void>;
  };

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

/** The composition root: opens the database (embedded or DATABASE_URL), migrates, opens the kernel and builds the families on it. */
export async function openSystem(config: ServiceConfig, options: SystemOptions = {}): Promise<System> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const db = await openMigratedDatabase(config, log, options.poolMax);
  const knex = db.knex;
  // Postgres runs the projections in the append's transaction, but for those that follow the log.
  // EventStoreDB cannot: its appends wait until the projector (this process's in standalone mode,
  // else services/projector) applied them. Projections that follow the log are the projector's.
  const postgres = config.eventStore === 'postgres';
  const logStore = await createEventStoreFor(config, db, postgres ? { inline: inlineProjections(INLINE_PROJECTIONS) } : {});
  const metrics = new Metrics();
  const apiKeys = new ApiKeyCache(knex, logStore, db.notifications, clock);
  const store: EventStore = new MeasuredEventStore(
    postgres
      ? logStore
      : new ReadYourWritesStore(
          logStore,
          knex,
          INLINE_PROJECTIONS.map((p) => p.name),
          { log },
        ),
    metrics,
  );
  const following = postgres ? FOLLOWING_PROJECTIONS : ALL_PROJECTIONS;
  const relay = await createRelayFor(config, { knex, store: logStore, log });
  const instance = await ProcessInstance.start(db.url, log);
  const scheduler = new Scheduler(knex, clock, log, 16, instance);

  const enqueuer = <P extends object>(process: Process<P>): Enqueue<P> => scheduler.enqueuer(process.job);
  const unscheduler = <P extends object>(process: Process<P>): Unschedule<P> => scheduler.unscheduler(process.job);

  // The routing table and the rails' callbacks (services/rails.ts, docs/connectors.md).
  const sinks = {
    collect: enqueuer(payinCallback),
    payout: enqueuer(payoutCallback),
    refund: enqueuer(refundCallback),
    collectStatusCheck: enqueuer(payinStatusCheck),
    payoutStatusCheck: enqueuer(payoutStatusCheck),
    refundStatusCheck: enqueuer(refundStatusCheck),
    dispute: enqueuer(disputeRead),
  };
  const { railsOf, disputeRailOf, inbound: railInbound, connectors, health: railHealth, float: railFloat, close: closeRails } = await openRails(config, { clock, log, store, knex, sinks, wrap: options.rails });

  const gates = rememberedGates(readPorts(knex), logStore);
  const payoutSettings = rememberedPayoutSettings(knex, logStore);
  // This process's commits evict its caches at once (other processes' reach them through the log).
  if (logStore instanceof PostgresEventStore) {
    logStore.onCommitted((events) => {
      apiKeys.evict(events);
      gates.cache.evict(events);
      payoutSettings.cache.evict(events);
    });
  }
  const rateLimiter = new RateLimiter(knex, clock);
  const secretsKey = loadSecretsKey(config.secretsKey, config.dataDir);
  const secretBox = new SecretBox(secretsKey);
  // The service's own messages, written from templates, restyled by merchants' (docs/templates.md).
  const composer = new TemplateComposer(knex, log);
  // No SMS provider is reachable from here: SMS stay in the outbox (packages/messaging), where a gateway would plug in.
  const messenger = new OutboxMessenger({
    knex,
    clock,
    log,
    smtpUrl: config.smtpUrl,
    sms: null,
    composer,
    // Who a merchant's messages come from and whom a sandbox merchant may write to: the merchants' and accounts' read sides.
    senders: { sender: (merchantId) => findMerchant(knex, merchantId), verifiedTeamContacts: (merchantId) => verifiedTeamContacts(knex, merchantId) },
    box: secretBox,
    retention: config.outboxRetention,
    enqueuePurge: (p, runAt) => enqueue(knex, outboxPurge.job, p, runAt),
  });
  const notifier = new Notifier(knex, clock, config.smtpUrl, log, composer);
  const closers: (() => void | Promise<void>)[] = [];
  const kernel: Kernel = {
    config,
    db,
    knex,
    store,
    ledger: new Ledger(CHART, LEDGER_PARTS),
    clock,
    log,
    metrics,
    instance,
    scheduler,
    enqueuer,
    unscheduler,
    railsOf,
    disputeRailOf,
    rateLimiter,
    countPublicPush: publicPushCounter(rateLimiter, config.pushLimits),
    idempotency: new IdempotencyStore(knex, clock, config.idempotencyTtlMs, secretBox, instance),
    apiKeyUsage: new ApiKeyUsage(knex, clock),
    reads: gates.reads,
    payoutSettings,
    secretsKey,
    secretBox,
    outbox: messenger,
    templateComposer: composer,
    notifier,
    publicEvents: PUBLIC_EVENTS,
    deadlines: { webhookTimeoutMs: options.webhookTimeoutMs, automationHttpTimeoutMs: options.automationHttpTimeoutMs },
    atClose: (close) => closers.push(close),
  };

  const families = openFamilies(kernel);
  const busConsumers = families.consumers;
  // The projector (the projections that follow the log) and the sealer, which folds the log into
  // the global hash chain in commit order (docs/audit.md), read the log itself whatever the bus;
  // with BUS=postgres the bus consumers join them in one consumer group (one transaction a batch).
  // With Postgres nothing waits on the projector's stored checkpoints (read-your-writes is inline),
  // so those of batches it acts on none of may lag like the bus consumers'.
  const consumers = await createConsumersFor(config, { knex, store: logStore, log }, busConsumers, [...projectionConsumers(following, postgres ? CHECKPOINT_DEFER_MS : 0), { spec: chainSealer() }]);
  const services = { ...kernel, ...families.api };
  registerProcesses(scheduler, PROCESSES, services);
  registerOperationalGauges(metrics, { knex, clock, consumers: busConsumers.map((c) => c.name), postgresLog: config.eventStore === 'postgres' && config.bus === 'postgres' });

  return {
    ...services,
    config,
    gates: gates.cache,
    busConsumers,
    railInbound,
    connectors,
    railHealth,
    railFloat,
    apiKeys,
    liveRailChoices: (country) => railChoices(connectors, 'live', country),
    savedCards: (owner, customerId) => savedCardsOf(knex, owner, customerId),
    startBackground: async ({ schedulerLoop = true } = {}) => {
      await relay?.start();
      for (const consumer of consumers) await consumer.start();
      await messenger.schedulePurge();
      if (schedulerLoop) scheduler.start();
    },
    drain: async () => {
      // Jobs append events that the dispatcher turns into more jobs: loop until both are idle.
      for (let round = 0; round < 50; round++) {
        await relay?.caughtUp();
        for (const consumer of consumers) await consumer.caughtUp();
        if ((await scheduler.runUntilIdle()) === 0) return;
      }
    },
    rebuildProjections: async (names = []) => {
      const chosen = projectionsNamed(names);
      // Projections that follow the log: empty their tables and checkpoints; the projector rebuilds them from position zero.
      await resetForRebuild(
        knex,
        chosen.filter((p) => following.includes(p)),
      );
      const inline = chosen.filter((p) => !following.includes(p));
      if (inline.length === 0 || !(logStore instanceof PostgresEventStore)) return 0;
      // A pool of its own whose connection pipelines: the rebuild's statements go out as they are made.
      const writer = createKnex(db.url, 1, { pipeline: true });
      try {
        return await rebuildInline(writer, knex, inline, (trx, after, limit) => logStore.readCommitted(trx, after, limit));
      } finally {
        await writer.destroy();
      }
    },
    verifyProjections: async (names = []) => {
      const chosen = projectionsNamed(names);
      // With EventStoreDB no snapshot holds both the log and the read models.
      if (!(logStore instanceof PostgresEventStore)) throw new Error('projections verify needs the Postgres event store (EVENT_STORE=postgres)');
      return verifyProjections(knex, db.url, ALL_PROJECTIONS, chosen, (trx, after, limit) => logStore.readCommitted(trx, after, limit));
    },
    close: async () => {
      closeRails();
      await scheduler.stop();
      await instance.stop();
      // Side by side: each may wait for a fetch in flight (a Kafka consumer's long poll).
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await relay?.stop();
      for (const close of closers) await close();
      notifier.close();
      messenger.close();
      await store.close();
      await db.close();
    },
  };
}
