import type { Knex } from 'knex';
import type { Clock } from '../../../packages/core/clock.js';
import { unixSeconds } from '../../../packages/core/clock.js';
import { ApiError } from '../../../packages/core/errors.js';
import type { EndpointInput, WebhookEndpoints } from '../../../packages/domain/webhook-endpoint/commands.js';
import type { HandlerContext } from '../../../packages/http/context.js';
import { cursorListQuery, cursorPage, type CursorQuery } from '../../../packages/http/pagination.js';
import { route, type Family } from '../../../packages/http/routes.js';
import { findWebhookEndpoint, type WebhookEndpointRow } from '../../../projections/webhook-endpoints.js';

/** A secret older than this should be rotated (rotation_recommended). */
const ROTATE_AFTER_MS = 365 * 86_400_000;

const url = { type: 'string', minLength: 1, maxLength: 2048 };
const enabledEvents = { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } };
const idParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['id'] };

function render(row: WebhookEndpointRow, now: Date) {
  const previousActive = row.previous_secret_expires_at !== null && row.previous_secret_expires_at.getTime() > now.getTime();
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    enabled_events: row.enabled_events,
    enabled: row.enabled,
    status: row.failing ? 'failing' : 'active',
    secret_last4: row.secret_last4,
    secret_created_at: row.secret_created_at.toISOString(),
    has_previous_secret: previousActive,
    previous_secret_expires_at: previousActive ? row.previous_secret_expires_at!.toISOString() : null,
    rotation_recommended: now.getTime() - row.secret_created_at.getTime() > ROTATE_AFTER_MS,
    created: unixSeconds(row.created_at),
    livemode: row.environment === 'live',
  };
}

/** /api/v1/webhook-endpoints: register, list, read, update, rotate the signing secret. */
export function webhookEndpointsFamily(knex: Knex, clock: Clock, endpoints: WebhookEndpoints): Family {
  const read = { scope: 'webhooks.read', environmentHeader: 'optional' } as const;
  const write = { scope: 'webhooks.write', environmentHeader: 'optional' } as const;
  const load = async (ctx: HandlerContext, id: string) => {
    const row = await findWebhookEndpoint(knex, ctx.principal.merchantId, ctx.principal.environment, id);
    if (!row) throw new ApiError('IKW-RES-001', `No such webhook endpoint: '${id}'`, 'id');
    return row;
  };
  return {
    name: 'webhook-endpoints',
    routes: [
      route<{ url: string; enabled_events: string[] }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints',
        summary: 'Register a webhook endpoint; the response holds the signing secret, shown once',
        auth: write,
        body: { type: 'object', required: ['url', 'enabled_events'], additionalProperties: false, properties: { url, enabled_events: enabledEvents } },
        handler: async (ctx) => {
          const { state, secret } = await endpoints.create(ctx.owner, ctx.body, ctx.actor);
          const row = await load(ctx, state.endpoint!.id);
          return { ...render(row, clock.now()), secret };
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/webhook-endpoints',
        summary: 'List webhook endpoints, newest first',
        auth: read,
        query: cursorListQuery,
        handler: (ctx) => {
          const base = knex('read.webhook_endpoints').select('*').where({ merchant_id: ctx.principal.merchantId, environment: ctx.principal.environment });
          return cursorPage<WebhookEndpointRow, ReturnType<typeof render>>(base, ctx.query, '/api/v1/webhook-endpoints', 'id', (row) => render(row, clock.now()));
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/webhook-endpoints/:id',
        summary: 'Retrieve a webhook endpoint (the secret is never shown again, only its last four characters)',
        auth: read,
        params: idParams,
        handler: async (ctx) => render(await load(ctx, ctx.params.id), clock.now()),
      }),
      route<EndpointInput, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints/:id',
        summary: 'Update the URL, the event types or whether the endpoint is enabled',
        auth: write,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { url, enabled_events: enabledEvents, enabled: { type: 'boolean' } } },
        handler: async (ctx) => {
          await endpoints.update(ctx.owner, ctx.params.id, ctx.body, ctx.actor);
          return render(await load(ctx, ctx.params.id), clock.now());
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints/:id/rotate_secret',
        summary: 'Rotate the signing secret; the previous one keeps signing for 24 hours',
        auth: write,
        params: idParams,
        handler: async (ctx) => {
          const { secret } = await endpoints.rotateSecret(ctx.owner, ctx.params.id, ctx.actor);
          const row = await load(ctx, ctx.params.id);
          return { ...render(row, clock.now()), secret, secret_rotated_at: row.secret_created_at.toISOString() };
        },
      }),
    ],
  };
}
