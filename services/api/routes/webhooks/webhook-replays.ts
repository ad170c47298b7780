import type { WebhookDispatcher } from '../../../../packages/families/webhooks/dispatcher.js';
import { route, type Family } from '../../../../packages/http/routes.js';

/** POST /api/v1/webhook-replays: send stored events again (event, endpoint, or both). */
export function webhookReplaysFamily(webhooks: WebhookDispatcher): Family {
  return {
    name: 'webhook-replays',
    description: 'Sending events to webhook endpoints again: one event, an endpoint\'s failed deliveries, or everything since a moment.',
    routes: [
      route<{ event_id?: string; webhook_endpoint_id?: string; reason?: string }>({
        method: 'post',
        path: '/api/v1/webhook-replays',
        fields: { eventId: 'event_id', endpointId: 'webhook_endpoint_id' },
        summary: 'Replay an event to an endpoint, to every matching endpoint, the failed deliveries of an endpoint, or (neither given) of every enabled endpoint; failed deliveries 1,000 at a time, oldest first (has_more: send it again for the next)',
        auth: { scope: 'webhooks.write', environmentHeader: 'optional' },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            event_id: { type: 'string', minLength: 1, maxLength: 255 },
            webhook_endpoint_id: { type: 'string', minLength: 1, maxLength: 255 },
            reason: { type: 'string', maxLength: 1000 },
          },
        },
        response: {
          type: 'object',
          required: ['id', 'object', 'event_id', 'webhook_endpoint_id', 'reason', 'queued', 'deliveries', 'has_more', 'created', 'livemode'],
          properties: {
            id: { type: 'string' },
            object: { const: 'webhook_replay' },
            event_id: { type: ['string', 'null'] },
            webhook_endpoint_id: { type: ['string', 'null'] },
            reason: { type: ['string', 'null'] },
            queued: { type: 'integer', description: 'How many deliveries were queued' },
            deliveries: {
              type: 'array',
              items: { type: 'object', required: ['id', 'event_id', 'webhook_endpoint_id'], properties: { id: { type: 'string' }, event_id: { type: 'string' }, webhook_endpoint_id: { type: 'string' } } },
            },
            has_more: { type: 'boolean', description: 'More failed deliveries remain: send the same replay again for the next 1,000' },
            created: { type: 'integer' },
            livemode: { type: 'boolean' },
          },
        },
        handler: ({ owner, body: { event_id, webhook_endpoint_id, reason } }) =>
          webhooks.replay(owner, {
            ...(event_id !== undefined ? { eventId: event_id } : {}),
            ...(webhook_endpoint_id !== undefined ? { endpointId: webhook_endpoint_id } : {}),
            ...(reason !== undefined ? { reason } : {}),
          }),
      }),
    ],
  };
}
