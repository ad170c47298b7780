import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import { unixSeconds } from '#packages/core/clock.js';
import { publicEventId } from '#packages/core/ids.js';
import { notify } from '#packages/core/notifications.js';
import type { Environment } from '#packages/core/owner.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { chunks, type DeliveryQueue } from './delivery-queue.js';
import type { PublicEventCatalogue } from '#packages/core/public-events.js';
import { ownerKey, PUBLIC_EVENTS_CHANNEL } from './event-waits.js';
import { enabledEndpointsOf } from './read/webhook-endpoints.js';

export const DISPATCH_CONSUMER = 'webhook-dispatcher';

/**
 * The bus consumer that turns public domain events into webhook events and deliveries: each public
 * event stored once, with one delivery per matching endpoint (WebhookDeliverer sends them).
 */
export class WebhookEventConsumer {
  constructor(
    /** The public event types it stores and delivers. */
    private readonly publicEvents: PublicEventCatalogue,
    private readonly queue: DeliveryQueue,
  ) {}

  consumer(): ConsumerSpec {
    return {
      name: DISPATCH_CONSUMER,
      checkpointTable: 'bus_checkpoints',
      handles: this.publicEvents.names(),
      handle: (trx, events) => this.dispatch(trx, events),
    };
  }

  /**
   * A batch of the log, set-based: its public events stored in one statement, the endpoints of all
   * its merchants read in one, deliveries and their jobs written in one each. An event already
   * stored (this batch run before, up to a crash before the checkpoint moved) gets no delivery again.
   */
  private async dispatch(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void> {
    const rows = new Map<string, { id: string; source_event_id: string; merchant_id: string; environment: Environment; type: string; payload: string; created_at: Date }>();
    for (const event of events) {
      const data = event.data as { object?: unknown } | null;
      const merchantId = event.metadata.merchant_id;
      const environment = event.metadata.environment;
      if (!this.publicEvents.has(event.type) || !data?.object || !merchantId || !environment) continue;
      const id = publicEventId(event.eventId);
      const created = new Date(event.metadata.occurred_at ?? event.recordedAt);
      const payload = JSON.stringify({ id, object: 'event', type: event.type, created: unixSeconds(created), livemode: environment === 'live', data: data.object });
      rows.set(id, { id, source_event_id: event.eventId, merchant_id: merchantId, environment, type: event.type, payload, created_at: created });
    }
    if (rows.size === 0) return;
    const inserted = new Set<string>();
    for (const chunk of chunks([...rows.values()])) {
      const ids = await trx('webhook_events').insert(chunk).onConflict('id').ignore().returning<{ id: string }[]>('id');
      for (const r of ids) inserted.add(r.id);
    }
    const fresh = [...rows.values()].filter((r) => inserted.has(r.id));
    if (fresh.length === 0) return;
    // Heard when this transaction commits: the events API's waits of these owners look again.
    await notify(trx, PUBLIC_EVENTS_CHANNEL, [...new Set(fresh.map((r) => ownerKey({ merchantId: r.merchant_id, environment: r.environment })))]);
    const owners = new Map(fresh.map((r) => [`${r.merchant_id}|${r.environment}`, [r.merchant_id, r.environment]]));
    const endpoints = await enabledEndpointsOf(trx, [...owners.values()] as [string, Environment][]);
    const endpointsOf = new Map<string, typeof endpoints>();
    for (const e of endpoints) {
      const owner = ownerKey({ merchantId: e.merchant_id, environment: e.environment });
      const ofOwner = endpointsOf.get(owner);
      if (ofOwner) ofOwner.push(e);
      else endpointsOf.set(owner, [e]);
    }
    const targets = fresh.flatMap((r) =>
      (endpointsOf.get(ownerKey({ merchantId: r.merchant_id, environment: r.environment })) ?? [])
        .filter((e) => e.enabled_events.includes(r.type) || e.enabled_events.includes('*'))
        .map((endpoint) => ({ eventId: r.id, endpoint, replayOf: null })),
    );
    await this.queue.enqueue(trx, targets);
  }
}
