import type { Knex } from 'knex';
import { unixSeconds, type Clock } from '#packages/core/clock.js';
import type { Owner } from '#packages/core/owner.js';
import { testId } from '#packages/core/public-events.js';
import { Refusal } from '#packages/core/refusal.js';
import { findDelivery, type WebhookDeliveryWithAttempts } from './deliveries.js';
import type { DeliveryQueue } from './delivery-queue.js';
import type { PublicEventCatalogue } from '#packages/core/public-events.js';
import type { WebhookEndpointRow } from './read/webhook-endpoints.js';

/**
 * Test events (docs/webhooks.md, "Sending a test event"): each public type's `data` is its family's
 * example (packages/families/<family>/[<aggregate>/]public-events.ts). The event's id is a test id too.
 */

/** A test event's type when none is asked for and the endpoint names no type (it takes `*`). */
export const DEFAULT_TEST_EVENT_TYPE = 'payment_intent.succeeded';

/** The id of a test event: `evt_test_…` (a real event's is `evt_` and 24 characters). */
export const testEventId = () => testId('evt');

/** A test event of `type` as its webhook carries it: a real event's fields, plus `test: true`. */
export function testEventPayload(catalogue: PublicEventCatalogue, id: string, type: string, at: Date, livemode: boolean): string {
  const created = unixSeconds(at);
  return JSON.stringify({ id, object: 'event', type, created, livemode, test: true, data: catalogue.example(type, created, livemode) });
}

export interface WebhookTestEventsDeps {
  knex: Knex;
  clock: Clock;
  /** The public event types a test may be of, and their examples. */
  publicEvents: PublicEventCatalogue;
}

/** A merchant's test event sent to one of their endpoints. */
export class WebhookTestEvents {
  constructor(
    private readonly deps: WebhookTestEventsDeps,
    private readonly queue: DeliveryQueue,
  ) {}

  /**
   * A test event (docs/webhooks.md, "Sending a test event"): an example event of `type` (by
   * default the endpoint's first subscribed type), stored as a test of this endpoint alone (the
   * events API never lists it) and queued to it like any delivery, in one transaction; the
   * delivery jobs send, sign, retry and record it as they do every other.
   */
  async sendTest(owner: Owner, endpointId: string, type: string | undefined): Promise<WebhookDeliveryWithAttempts> {
    const { knex, clock, publicEvents } = this.deps;
    const endpoint = await knex('read.webhook_endpoints').where({ id: endpointId, merchant_id: owner.merchantId, environment: owner.environment }).first<WebhookEndpointRow | undefined>();
    if (!endpoint) throw new Refusal('IKW-RES-001', `No such webhook endpoint: '${endpointId}'`, 'endpointId');
    if (!endpoint.enabled) throw new Refusal('IKW-RES-002', 'This webhook endpoint is disabled; enable it before sending it a test event', 'endpointId');
    const listens = (t: string) => endpoint.enabled_events.includes('*') || endpoint.enabled_events.includes(t);
    const chosen = type ?? endpoint.enabled_events.find((t) => publicEvents.has(t)) ?? DEFAULT_TEST_EVENT_TYPE;
    if (!publicEvents.has(chosen)) throw new Refusal('IKW-VAL-001', `'${chosen}' is not an event type; see docs/events.md`, 'type');
    if (!listens(chosen)) {
      throw new Refusal('IKW-VAL-001', `This endpoint does not listen to '${chosen}'; send a type of its enabled_events (${endpoint.enabled_events.join(', ')})`, 'type');
    }
    const now = clock.now();
    const id = testEventId();
    const [queued] = await knex.transaction(async (trx) => {
      await trx('webhook_events').insert({
        id,
        source_event_id: null,
        test_endpoint_id: endpoint.id,
        merchant_id: owner.merchantId,
        environment: owner.environment,
        type: chosen,
        payload: testEventPayload(publicEvents, id, chosen, now, owner.environment === 'live'),
        created_at: now,
      });
      return this.queue.enqueue(trx, [{ eventId: id, endpoint, replayOf: null }]);
    });
    return (await findDelivery(knex, owner, endpoint.id, queued!.id))!;
  }
}
