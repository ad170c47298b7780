import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { Config } from '#packages/core/config.js';
import type { Database } from '#packages/core/database.js';
import type { ProcessInstance } from '#packages/core/instance.js';
import type { Logger } from '#packages/core/logger.js';
import type { Metrics } from '#packages/core/metrics.js';
import type { Environment } from '#packages/core/owner.js';
import type { SecretBox } from '#packages/core/secrets.js';
import type { Rails } from '#packages/connectors/port.js';
import type { DisputeRail } from '#packages/connectors/disputes.js';
import type { PayoutSettingsReader, ReadPorts } from './read-ports.js';
import type { PublicEventCatalogue } from '#packages/core/public-events.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { Ledger } from '#packages/ledger/decider.js';
import type { ApiKeyUsage } from '#packages/http/api-key-usage.js';
import type { IdempotencyStore } from '#packages/http/idempotency.js';
import type { publicPushCounter, RateLimiter } from '#packages/http/rate-limit.js';
import type { OutboxMessenger } from '#packages/messaging/messenger.js';
import type { DocumentComposer } from '#packages/messaging/messages.js';
import type { Process } from '#packages/processes/process.js';
import type { Enqueue, Scheduler, Unschedule } from '#packages/scheduler/scheduler.js';
import type { Notifier } from '#packages/webhooks/notifier.js';

/**
 * What services/system.ts opens before any family is built, and every family may use: storage,
 * the scheduler, the rails, secrets, the messenger and the caches of what hot paths read. Its
 * property names are the System's too (svc.store, svc.outbox, svc.templateComposer, …).
 */
export interface Kernel {
  config: Config;
  db: Database;
  knex: Knex;
  /** Postgres (inline projections) or EventStoreDB (appends wait for the projector: read-your-writes), per EVENT_STORE. */
  store: EventStore;
  /** The ledger made of the families' chart and parts (docs/ledger.md): whoever folds or decides a balance stream does it with its decider. */
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** What GET /metrics serves (docs/operations.md). */
  metrics: Metrics;
  /** This process's row in the instance registry (docs/operations.md). */
  instance: ProcessInstance;
  scheduler: Scheduler;
  /** The scheduler's port for one job kind: services never name job kinds themselves. */
  enqueuer<P extends object>(process: Process<P>): Enqueue<P>;
  /** Its port to drop a timer of one kind that is no longer needed. */
  unscheduler<P extends object>(process: Process<P>): Unschedule<P>;
  /** The connectors carrying each environment's rails (docs/connectors.md). */
  railsOf(environment: Environment): Rails;
  /** The rail carrying an environment's card disputes (Paystack's account), if one is configured (docs/disputes.md). */
  disputeRailOf(environment: Environment): DisputeRail | null;
  /** Request rate limits shared by every API process (counted in PostgreSQL). */
  rateLimiter: RateLimiter;
  /** Counts a public (unauthenticated) push against PUSH_LIMITS: checkout pages and contributions. */
  countPublicPush: ReturnType<typeof publicPushCounter>;
  idempotency: IdempotencyStore;
  /** When each key last authenticated a request (to the minute). */
  apiKeyUsage: ApiKeyUsage;
  /** The read ports commands use (packages/families/read-ports.ts), the payment gates remembered. */
  reads: ReadPorts;
  /** The merchants' payout settings as hot paths read them, remembered per merchant. */
  payoutSettings: PayoutSettingsReader;
  secretsKey: Buffer;
  secretBox: SecretBox;
  /** The message outbox (packages/messaging): what was sent to whom, and the kept texts, sealed. */
  outbox: OutboxMessenger;
  /** The writer of the service's messages and documents from templates (docs/templates.md). */
  templateComposer: DocumentComposer;
  /** Every family's public events (packages/families/index.ts assembles them): what webhooks deliver and automations are triggered by. */
  publicEvents: PublicEventCatalogue;
  /** Operational e-mails to merchants (webhook endpoints failing, automations). */
  notifier: Notifier;
  /** Deadlines the tests shorten: a webhook delivery's whole attempt (15 s), an automation's http_request step (10 s). */
  deadlines: { webhookTimeoutMs?: number; automationHttpTimeoutMs?: number };
  /** Called when the system closes, after the bus consumers and the scheduler stopped. */
  atClose(close: () => void | Promise<void>): void;
}
