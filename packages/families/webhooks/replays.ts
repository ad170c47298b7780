import type { Knex } from 'knex';
import { unixSeconds, type Clock } from '#packages/core/clock.js';
import { newId } from '#packages/core/ids.js';
import type { Owner } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { matchingEndpoints, type WebhookEndpointRow } from './read/webhook-endpoints.js';

/** Replays of an endpoint's failed deliveries reach back this far (events are kept at least this long). */
export const RETENTION_MS = 30 * 86_400_000;
/**
 * Failed deliveries one replay request queues at most, oldest first: an unfiltered replay after a
 * long outage must not flood the queue (and the merchant's server) at once. The answer's
 * `has_more` says more remain; the same request again queues the next ones.
 */
export const REPLAY_LIMIT = 1_000;

/** A replay (docs/webhooks.md): an event, an endpoint, both or neither, and why. */
export interface WebhookReplay {
  eventId?: string;
  endpointId?: string;
  reason?: string;
}

export interface WebhookReplaysDeps {
  knex: Knex;
  clock: Clock;
}

/** A merchant's replays of events and failed deliveries to their endpoints, queued as new deliveries. */
export class WebhookReplays {
  constructor(
    private readonly deps: WebhookReplaysDeps,
    private readonly queue: DeliveryQueue,
  ) {}

  /**
   * Replays (docs/webhooks.md): an event to an endpoint; an event to every endpoint matching it;
   * an endpoint's failed deliveries; neither given: the failed deliveries of every enabled
   * endpoint. Failed deliveries are queued REPLAY_LIMIT at a time, oldest first.
   */
  async replay(owner: Owner, input: WebhookReplay) {
    const { knex } = this.deps;
    const scope = { merchant_id: owner.merchantId, environment: owner.environment };
    const event = input.eventId
      ? await knex('webhook_events')
          .select('id', 'type', 'test_endpoint_id')
          .where({ id: input.eventId, ...scope })
          .first<{ id: string; type: string; test_endpoint_id: string | null } | undefined>()
      : undefined;
    if (input.eventId && !event) throw new Refusal('IKW-RES-001', `No such event: '${input.eventId}'`, 'eventId');
    // A test event belongs to its endpoint: it is replayed to that one alone.
    if (event?.test_endpoint_id && input.endpointId && input.endpointId !== event.test_endpoint_id) {
      throw new Refusal('IKW-RES-001', `'${event.id}' is a test event of another webhook endpoint`, 'eventId');
    }
    const endpoint = input.endpointId
      ? await knex('read.webhook_endpoints')
          .where({ id: input.endpointId, ...scope })
          .first<WebhookEndpointRow | undefined>()
      : undefined;
    if (input.endpointId && !endpoint) throw new Refusal('IKW-RES-001', `No such webhook endpoint: '${input.endpointId}'`, 'endpointId');
    if (endpoint && !endpoint.enabled) throw new Refusal('IKW-RES-002', 'This webhook endpoint is disabled; enable it before replaying to it', 'endpointId');

    const { queued, hasMore } = await knex.transaction(async (trx) => {
      if (event && endpoint) return { queued: await this.queue.enqueue(trx, [{ eventId: event.id, endpoint, replayOf: null }]), hasMore: false };
      if (event) {
        const matching = await matchingEndpoints(trx, owner.merchantId, owner.environment, event.type);
        const targets = event.test_endpoint_id ? matching.filter((e) => e.id === event.test_endpoint_id) : matching;
        return {
          queued: await this.queue.enqueue(
            trx,
            targets.map((e) => ({ eventId: event.id, endpoint: e, replayOf: null })),
          ),
          hasMore: false,
        };
      }
      if (endpoint) return this.replayFailed(trx, [endpoint]);
      return this.replayFailed(trx, (await trx('read.webhook_endpoints').where({ ...scope, enabled: true })) as WebhookEndpointRow[]);
    });
    return {
      id: newId('whr'),
      object: 'webhook_replay',
      event_id: input.eventId ?? null,
      webhook_endpoint_id: input.endpointId ?? null,
      reason: input.reason ?? null,
      queued: queued.length,
      deliveries: queued,
      has_more: hasMore,
      created: unixSeconds(this.deps.clock.now()),
      livemode: owner.environment === 'live',
    };
  }

  /**
   * One replay per event and endpoint whose deliveries all failed within the retention window, the
   * oldest REPLAY_LIMIT of them; `hasMore` when others remain (the next request queues them: those
   * queued now are on their way, so they are not picked again).
   */
  private async replayFailed(trx: Knex.Transaction, endpoints: WebhookEndpointRow[]) {
    if (endpoints.length === 0) return { queued: [], hasMore: false };
    // An event that has since reached the endpoint (a replay that succeeded) or is on its way
    // (pending, retrying) is not sent again. Per event and endpoint, its first failed delivery.
    const firstFailures = trx('webhook_deliveries as d')
      .distinctOn('d.endpoint_id', 'd.event_id')
      .select('d.id', 'd.event_id', 'd.endpoint_id', 'd.created_at')
      .whereIn(
        'd.endpoint_id',
        endpoints.map((e) => e.id),
      )
      .andWhere('d.status', 'failed')
      .andWhere('d.created_at', '>=', new Date(this.deps.clock.now().getTime() - RETENTION_MS))
      .whereNotExists((q) => {
        q.select(trx.raw('1')).from('webhook_deliveries as s').whereRaw('s.endpoint_id = d.endpoint_id AND s.event_id = d.event_id').whereIn('s.status', ['pending', 'retrying', 'succeeded']);
      })
      .orderBy([{ column: 'd.endpoint_id' }, { column: 'd.event_id' }, { column: 'd.created_at' }])
      .as('f');
    const failed = (await trx
      .select('*')
      .from(firstFailures)
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(REPLAY_LIMIT + 1)) as { id: string; event_id: string; endpoint_id: string; created_at: Date }[];
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    const queued = await this.queue.enqueue(
      trx,
      failed.slice(0, REPLAY_LIMIT).map((f) => ({ eventId: f.event_id, endpoint: byId.get(f.endpoint_id)!, replayOf: f.id })),
    );
    return { queued, hasMore: failed.length > REPLAY_LIMIT };
  }
}
