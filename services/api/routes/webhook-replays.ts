import type { WebhookDispatcher } from '../../../packages/webhooks/dispatcher.js';
import { route, type Family } from '../../../packages/http/routes.js';

/** POST /api/v1/webhook-replays: send stored events again (event, endpoint, or both). */
export function webhookReplaysFamily(webhooks: WebhookDispatcher): Family {
  return {
    name: 'webhook-replays',
    routes: [
      route<{ event_id?: string; webhook_endpoint_id?: string; reason?: string }>({
        method: 'post',
        path: '/api/v1/webhook-replays',
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
        handler: (ctx) => webhooks.replay(ctx.owner, ctx.body),
      }),
    ],
  };
}
