import type { WebhookReplays } from '../replays.js';
import { route, type RouteGroup } from '#packages/http/routes.js';

/** POST /api/v1/webhook-replays: send stored events again (event, endpoint, or both). */
export function webhookReplaysRoutes(replays: WebhookReplays): RouteGroup {
  return {
    name: 'webhook-replays',
    description: "Sending events to webhook endpoints again: one event, an endpoint's failed deliveries, or everything since a moment.",
    routes: [
      route<{ event_id?: string; webhook_endpoint_id?: string; reason?: string }>({
        method: 'post',
        path: '/api/v1/webhook-replays',
        fields: { eventId: 'event_id', endpointId: 'webhook_endpoint_id' },
        summary:
          'Replay an event to an endpoint, to every matching endpoint, the failed deliveries of an endpoint, or (neither given) of every enabled endpoint; failed deliveries 1,000 at a time, oldest first (has_more: send it again for the next)',
        description: [
          "Sends stored events again, signed with the endpoint's current secret(s) and under their original ids (`webhook-id`), so receivers that deduplicate stay right. What is sent depends on what you name:",
          '',
          '- `event_id` and `webhook_endpoint_id`: that event to that endpoint;',
          '- `event_id` only: that event to every endpoint that matches it now;',
          '- `webhook_endpoint_id` only: every failed delivery of that endpoint in the last 30 days;',
          '- neither: every failed delivery of every enabled endpoint, as after an outage on your side.',
          '',
          'Failed deliveries are queued 1,000 at a time, oldest first: with `has_more: true`, send the request again (with a new `Idempotency-Key`) for the next. An unknown event or endpoint is `404 IKW-RES-001`; a disabled endpoint `409 IKW-RES-002` (enable it first).',
        ].join('\n'),
        refusals: ['IKW-RES-001', 'IKW-RES-002'],
        auth: { scope: 'webhooks.write', environmentHeader: 'optional' },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            event_id: { type: 'string', minLength: 1, maxLength: 255, description: 'The event to send again (`evt_…`), of the last 30 days' },
            webhook_endpoint_id: { type: 'string', minLength: 1, maxLength: 255, description: 'The endpoint to send to (`we_…`): with `event_id`, that event; alone, its failed deliveries' },
            reason: { type: 'string', maxLength: 1000, description: 'Why you replay, for your records: kept on the answer' },
          },
        },
        response: {
          type: 'object',
          required: ['id', 'object', 'event_id', 'webhook_endpoint_id', 'reason', 'queued', 'deliveries', 'has_more', 'created', 'livemode'],
          properties: {
            id: { type: 'string', description: "The replay's id" },
            object: { const: 'webhook_replay', description: 'The kind of object: always `webhook_replay`' },
            event_id: { type: ['string', 'null'], description: 'The event named, or null' },
            webhook_endpoint_id: { type: ['string', 'null'], description: 'The endpoint named, or null' },
            reason: { type: ['string', 'null'], description: 'The reason given, or null' },
            queued: { type: 'integer', description: 'How many deliveries were queued' },
            deliveries: {
              type: 'array',
              description: "The deliveries queued: follow each in its endpoint's deliveries",
              items: {
                type: 'object',
                required: ['id', 'event_id', 'webhook_endpoint_id'],
                properties: {
                  id: { type: 'string', description: 'The new delivery (`whd_…`)' },
                  event_id: { type: 'string', description: 'The event it sends' },
                  webhook_endpoint_id: { type: 'string', description: 'The endpoint it goes to' },
                },
              },
            },
            has_more: { type: 'boolean', description: 'More failed deliveries remain: send the same replay again for the next 1,000' },
            created: { type: 'integer', description: 'When the replay was made, in Unix seconds' },
            livemode: { type: 'boolean', description: '`true` in the live environment, `false` in sandbox' },
          },
        },
        handler: ({ owner, body: { event_id, webhook_endpoint_id, reason } }) =>
          replays.replay(owner, {
            ...(event_id !== undefined ? { eventId: event_id } : {}),
            ...(webhook_endpoint_id !== undefined ? { endpointId: webhook_endpoint_id } : {}),
            ...(reason !== undefined ? { reason } : {}),
          }),
      }),
    ],
  };
}
