import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import type { EndpointChanges, WebhookEndpoints } from '../../../../packages/families/webhooks/commands.js';
import type { CursorQuery } from '../../../../projections/paging.js';
import { ApiError } from '../../../../packages/core/errors.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findWebhookEndpoint, listWebhookEndpoints, webhookEndpointObject } from '../../../../projections/webhooks/webhook-endpoints.js';
import { DELIVERY_STATUSES, findDelivery, listDeliveries, type DeliveryStatus } from '../../../../packages/families/webhooks/deliveries.js';
import type { WebhookDispatcher } from '../../../../packages/families/webhooks/dispatcher.js';
import { cursorListSchema, cursorQuery, found, idParams, resourceSchema } from '../shared.js';
import type { Owner } from '../../../../packages/core/owner.js';

const url = { type: 'string', minLength: 1, maxLength: 2048 };
const nullable = (type: string) => ({ type: [type, 'null'] });
/** A delivery of an event to an endpoint (packages/families/webhooks/deliveries.ts). */
const deliverySchema = resourceSchema('webhook_delivery', ['webhook_endpoint_id', 'event_id', 'event_type', 'status', 'attempt_count', 'next_attempt_at', 'replay_of', 'created', 'livemode'], {
  webhook_endpoint_id: { type: 'string' },
  event_id: { type: 'string' },
  event_type: { type: 'string' },
  status: { enum: [...DELIVERY_STATUSES] },
  attempt_count: { type: 'integer' },
  next_attempt_at: { ...nullable('string'), format: 'date-time' },
  replay_of: nullable('string'),
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
});
const attemptSchema = {
  type: 'object',
  required: ['attempt', 'started_at', 'duration_ms', 'response_status', 'error', 'response_body'],
  properties: {
    attempt: { type: 'integer' },
    started_at: { type: 'string', format: 'date-time' },
    duration_ms: { type: 'integer' },
    response_status: nullable('integer'),
    error: nullable('string'),
    response_body: nullable('string'),
  },
};
const deliveryWithAttemptsSchema = {
  ...deliverySchema,
  required: [...deliverySchema.required, 'attempts'],
  properties: { ...deliverySchema.properties, attempts: { type: 'array', items: attemptSchema } },
};
/** An endpoint as webhookEndpointObject (projections/webhooks/webhook-endpoints.ts) renders it. */
const endpointSchema = resourceSchema(
  'webhook_endpoint',
  ['url', 'enabled_events', 'enabled', 'status', 'secret_last4', 'secret_created_at', 'has_previous_secret', 'previous_secret_expires_at', 'rotation_recommended', 'created', 'livemode'],
  {
    url: { type: 'string' },
    enabled_events: { type: 'array', items: { type: 'string' } },
    enabled: { type: 'boolean' },
    status: { enum: ['active', 'failing'], description: 'failing: its recent deliveries fail (docs/webhooks.md)' },
    secret_last4: { type: 'string' },
    secret_created_at: { type: 'string', format: 'date-time' },
    has_previous_secret: { type: 'boolean', description: 'The secret before the last rotation still signs, until previous_secret_expires_at' },
    previous_secret_expires_at: { ...nullable('string'), format: 'date-time' },
    rotation_recommended: { type: 'boolean' },
    created: { type: 'integer' },
    livemode: { type: 'boolean' },
  },
);
/** An update's body as the API spells it. */
interface EndpointBody {
  url?: string;
  enabled_events?: string[];
  enabled?: boolean;
}

/** The changes of an update's body. */
function changesOf({ enabled_events, ...rest }: EndpointBody): EndpointChanges {
  return { ...rest, ...(enabled_events !== undefined ? { enabledEvents: enabled_events } : {}) };
}

/** The answers that show the signing secret, once: creation and rotation. */
const endpointWithSecretSchema = {
  ...endpointSchema,
  required: [...endpointSchema.required, 'secret'],
  properties: { ...endpointSchema.properties, secret: { type: 'string', description: 'whsec_…, shown only in this answer' }, secret_rotated_at: { type: 'string', format: 'date-time' } },
};
const deliveryParams = { type: 'object', properties: { id: idParams.properties.id, deliveryId: idParams.properties.id }, required: ['id', 'deliveryId'] };
const enabledEvents = { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } };

/** /api/v1/webhook-endpoints: register, list, read, update, rotate the signing secret, send a test event, delete; an endpoint's deliveries. */
export function webhookEndpointsFamily(knex: Knex, clock: Clock, endpoints: WebhookEndpoints, webhooks: WebhookDispatcher): Family {
  const read = { scope: 'webhooks.read', environmentHeader: 'optional' } as const;
  const write = { scope: 'webhooks.write', environmentHeader: 'optional' } as const;
  const load = (owner: Owner, id: string) => found('webhook endpoint', id, findWebhookEndpoint(knex, owner, id));
  return {
    name: 'webhook-endpoints',
    description: 'Webhook endpoints: where Sika posts signed events (Standard Webhooks), which events each takes, and its signing secrets.',
    routes: [
      route<{ url: string; enabled_events: string[] }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints',
        summary: 'Register a webhook endpoint; the response holds the signing secret, shown once',
        auth: write,
        fields: { enabledEvents: 'enabled_events' },
        body: { type: 'object', required: ['url', 'enabled_events'], additionalProperties: false, properties: { url, enabled_events: enabledEvents } },
        response: endpointWithSecretSchema,
        handler: async (ctx) => {
          const { state, secret } = await endpoints.create(ctx.owner, { url: ctx.body.url, enabledEvents: ctx.body.enabled_events }, ctx.actor, ctx.principal.scopes);
          return { ...webhookEndpointObject(await load(ctx.owner, state.endpoint!.id), clock.now()), secret };
        },
      }),
      route<unknown, CursorQuery>({
        method: 'get',
        path: '/api/v1/webhook-endpoints',
        summary: 'List webhook endpoints, newest first',
        auth: read,
        query: cursorQuery(),
        response: cursorListSchema(endpointSchema),
        handler: (ctx) => listWebhookEndpoints(knex, ctx.owner, ctx.query, '/api/v1/webhook-endpoints', clock.now()),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/webhook-endpoints/:id',
        summary: 'Retrieve a webhook endpoint (the secret is never shown again, only its last four characters)',
        auth: read,
        params: idParams,
        response: endpointSchema,
        handler: async (ctx) => webhookEndpointObject(await load(ctx.owner, ctx.params.id), clock.now()),
      }),
      route<EndpointBody, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints/:id',
        summary: 'Update the URL, the event types or whether the endpoint is enabled',
        auth: write,
        fields: { enabledEvents: 'enabled_events', endpointId: 'id' },
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { url, enabled_events: enabledEvents, enabled: { type: 'boolean' } } },
        response: endpointSchema,
        handler: async (ctx) => {
          await endpoints.update(ctx.owner, ctx.params.id, changesOf(ctx.body), ctx.actor, ctx.principal.scopes);
          return webhookEndpointObject(await load(ctx.owner, ctx.params.id), clock.now());
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints/:id/rotate_secret',
        fields: { endpointId: 'id' },
        summary: 'Rotate the signing secret; the previous one keeps signing for 24 hours',
        auth: write,
        params: idParams,
        response: endpointWithSecretSchema,
        handler: async (ctx) => {
          const { secret } = await endpoints.rotateSecret(ctx.owner, ctx.params.id, ctx.actor);
          const row = await load(ctx.owner, ctx.params.id);
          return { ...webhookEndpointObject(row, clock.now()), secret, secret_rotated_at: row.secret_created_at.toISOString() };
        },
      }),
      route<{ type?: string }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints/:id/send_test_event',
        fields: { endpointId: 'id' },
        summary:
          "Send the endpoint alone a signed test event (`evt_test_…`, `test: true`) of `type`, one it listens to (default: its first subscribed type, or payment_intent.succeeded for `*`); answers the queued delivery, which is sent, retried and replayed like any other. The events list never shows it",
        auth: write,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { type: { type: 'string', minLength: 1, maxLength: 100 } } },
        status: 202,
        response: deliveryWithAttemptsSchema,
        handler: (ctx) => webhooks.sendTest(ctx.owner, ctx.params.id, ctx.body.type),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/webhook-endpoints/:id',
        fields: { endpointId: 'id' },
        summary: 'Delete a webhook endpoint: nothing is sent to it again (deliveries still queued are skipped) and it, its deliveries included, is no longer found',
        auth: write,
        params: idParams,
        response: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'webhook_endpoint' }, deleted: { const: true } } },
        handler: async (ctx) => {
          await endpoints.delete(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'webhook_endpoint', deleted: true };
        },
      }),
      route<unknown, CursorQuery & { status?: DeliveryStatus }, { id: string }>({
        method: 'get',
        path: '/api/v1/webhook-endpoints/:id/deliveries',
        summary: "List the endpoint's deliveries, newest first; `status` filters (pending, retrying, succeeded, failed, skipped)",
        auth: read,
        params: idParams,
        query: cursorQuery({ status: { enum: [...DELIVERY_STATUSES] } }),
        response: cursorListSchema(deliverySchema),
        handler: async (ctx) => {
          await load(ctx.owner, ctx.params.id);
          return listDeliveries(knex, ctx.owner, ctx.params.id, ctx.query, `/api/v1/webhook-endpoints/${ctx.params.id}/deliveries`);
        },
      }),
      route<unknown, unknown, { id: string; deliveryId: string }>({
        method: 'get',
        path: '/api/v1/webhook-endpoints/:id/deliveries/:deliveryId',
        summary: "Retrieve a delivery with its attempts: when each started, how long it took, the answer's status, the error, and the first 4 KiB of the answer's body",
        auth: read,
        params: deliveryParams,
        response: deliveryWithAttemptsSchema,
        handler: async (ctx) => {
          await load(ctx.owner, ctx.params.id);
          const delivery = await findDelivery(knex, ctx.owner, ctx.params.id, ctx.params.deliveryId);
          if (!delivery) throw new ApiError('IKW-RES-001', `No such webhook delivery: '${ctx.params.deliveryId}'`, 'deliveryId');
          return delivery;
        },
      }),
    ],
  };
}
