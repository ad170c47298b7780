import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { randomBase62 } from '#packages/core/ids.js';
import type { WebhookEndpointRow } from './read/webhook-endpoints.js';

/** The first attempts of new deliveries, one job for those one transaction queued (at most FIRST_ATTEMPTS_PER_JOB). */
export interface FirstAttemptsJob {
  deliveryIds: string[];
}

/** A delivery to queue: an event to an endpoint, and the failed delivery it replays (null: none). */
export interface NewDelivery {
  eventId: string;
  endpoint: WebhookEndpointRow;
  replayOf: string | null;
}

/** A queued delivery as the answers of replays name it. */
export interface QueuedDelivery {
  id: string;
  event_id: string;
  webhook_endpoint_id: string;
}

export interface DeliveryQueueDeps {
  clock: Clock;
  /** Enqueues new deliveries' first attempts in the given transaction, so a delivery row never exists without its job. */
  enqueueFirstAttempts(db: Knex | Knex.Transaction, jobs: readonly { payload: FirstAttemptsJob; runAt: Date }[]): Promise<void>;
}

/** Rows per multi-row statement: PostgreSQL takes at most 65 535 bindings. */
const ROWS_PER_STATEMENT = 1000;
/** New deliveries one first-attempts job holds (webhookFirstAttempts claims 20 jobs at a time: at most 2 000 deliveries a batch). */
const FIRST_ATTEMPTS_PER_JOB = 100;

/** The items in slices of `size`, one multi-row statement each. */
export function* chunks<T>(items: readonly T[], size = ROWS_PER_STATEMENT): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/**
 * Where every delivery starts, whoever asks for it (the log's consumer, a test event, a replay): its
 * row and its first attempt's job, written together.
 */
export class DeliveryQueue {
  constructor(private readonly deps: DeliveryQueueDeps) {}

  /** New deliveries, each with its first attempt's job, in the caller's transaction (multi-row statements). */
  async enqueue(db: Knex | Knex.Transaction, targets: readonly NewDelivery[]): Promise<QueuedDelivery[]> {
    if (targets.length === 0) return [];
    const now = this.deps.clock.now();
    const rows = targets.map((d) => ({
      id: `whd_${randomBase62(24)}`,
      event_id: d.eventId,
      endpoint_id: d.endpoint.id,
      merchant_id: d.endpoint.merchant_id,
      environment: d.endpoint.environment,
      status: 'pending',
      replay_of: d.replayOf,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    }));
    for (const chunk of chunks(rows)) await db('webhook_deliveries').insert(chunk);
    const jobs = [...chunks(rows, FIRST_ATTEMPTS_PER_JOB)].map((chunk) => ({ payload: { deliveryIds: chunk.map((r) => r.id) }, runAt: now }));
    await this.deps.enqueueFirstAttempts(db, jobs);
    return rows.map((r) => ({ id: r.id, event_id: r.event_id, webhook_endpoint_id: r.endpoint_id }));
  }
}
