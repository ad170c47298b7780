import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { EndpointChanges, WebhookEndpoints } from '../commands.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { ApiError } from '#packages/core/errors.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findWebhookEndpoint, listWebhookEndpoints, webhookEndpointObject } from '../read/webhook-endpoints.js';
import { DELIVERY_STATUSES, findDelivery, listDeliveries, type DeliveryStatus } from '../deliveries.js';
import type { WebhookTestEvents } from '../test-events.js';
import { cursorListSchema, cursorQuery, found, idParams, resourceSchema } from '#packages/http/route-kit.js';
import type { Owner } from '#packages/core/owner.js';

const url = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description: 'Where events are posted: an absolute `https://` URL (`http://` in sandbox only), never a private, loopback or link-local address in any spelling (`IKW-WHK-001`; docs/webhooks.md, "Which URLs are accepted")',
};
const nullable = (type: string) => ({ type: [type, 'null'] });
/** What each delivery status means (docs/webhooks.md, "Deliveries"). */
const DELIVERY_STATUS_WORDS: Record<string, string> = {
  pending: 'Queued, not yet sent',
  retrying: 'An attempt failed; the next one is due at `next_attempt_at` (5 min, 30 min, 2 h, 8 h, 24 h)',
  succeeded: 'The endpoint answered 2xx within 15 seconds',
  failed: 'Every attempt failed; replay it (`POST /api/v1/webhook-replays`) once the endpoint is fixed',
  skipped: 'Not sent: the endpoint was disabled or deleted before its turn',
};

/** A delivery of an event to an endpoint (packages/families/webhooks/deliveries.ts). */
const deliverySchema = resourceSchema('webhook_delivery', ['webhook_endpoint_id', 'event_id', 'event_type', 'status', 'attempt_count', 'next_attempt_at', 'replay_of', 'created', 'livemode'], {
  webhook_endpoint_id: { type: 'string', description: 'The endpoint it goes to (`we_…`)' },
  event_id: { type: 'string', description: 'The event it carries (`evt_…`; `evt_test_…` for a test event): the `webhook-id` header of every attempt' },
  event_type: { type: 'string', description: 'The type of that event (`payout.paid`)' },
  status: { enum: [...DELIVERY_STATUSES], description: 'Where the delivery stands', 'x-enumDescriptions': DELIVERY_STATUS_WORDS },
  attempt_count: { type: 'integer', description: 'How many times it has been sent' },
  next_attempt_at: { ...nullable('string'), format: 'date-time', description: 'When the next attempt is due, while one is; null otherwise' },
  replay_of: { ...nullable('string'), description: 'The failed delivery this one replays (a replay of failed deliveries); null otherwise' },
  created: { type: 'integer', description: 'When it was queued, in Unix seconds' },
  livemode: { type: 'boolean' },
});

const attemptSchema = {
  type: 'object',
  required: ['attempt', 'started_at', 'duration_ms', 'response_status', 'error', 'response_body'],
  properties: {
    attempt: { type: 'integer', description: 'Its number: 1, 2, …' },
    started_at: { type: 'string', format: 'date-time', description: 'When the request was sent' },
    duration_ms: { type: 'integer', description: 'How long the endpoint took to answer (or until it failed), in milliseconds' },
    response_status: { ...nullable('integer'), description: "The answer's HTTP status; null when no answer came (a timeout, a refused connection or address)" },
    error: { ...nullable('string'), description: 'What went wrong (`HTTP 503` for a status that is not 2xx, a timeout, a refused address); null on success' },
    response_body: { ...nullable('string'), description: "The first 4 KiB of the answer's body as UTF-8 text; null when there was no answer" },
  },
};
const deliveryWithAttemptsSchema = {
  ...deliverySchema,
  required: [...deliverySchema.required, 'attempts'],
  properties: { ...deliverySchema.properties, attempts: { type: 'array', items: attemptSchema, description: 'Every attempt, first to last; empty until it is first sent' } },
};
/** An endpoint as webhookEndpointObject (packages/families/webhooks/read/webhook-endpoints.ts) renders it. */
const endpointSchema = resourceSchema(
  'webhook_endpoint',
  ['url', 'enabled_events', 'enabled', 'status', 'secret_last4', 'secret_created_at', 'has_previous_secret', 'previous_secret_expires_at', 'rotation_recommended', 'created', 'livemode'],
  {
    url: { type: 'string', description: 'Where events are posted' },
    enabled_events: { type: 'array', items: { type: 'string' }, description: 'The event types it receives (docs/events.md), or `*` for all' },
    enabled: { type: 'boolean', description: 'Whether events are sent to it; a disabled endpoint gets nothing (its queued deliveries are skipped)' },
    status: {
      enum: ['active', 'failing'],
      description: 'failing: its recent deliveries fail (docs/webhooks.md)',
      'x-enumDescriptions': {
        active: 'Its deliveries succeed, or none has failed for good',
        failing: 'A delivery failed every retry (the merchant was e-mailed once); the next success clears it',
      },
    },
    secret_last4: { type: 'string', description: 'The last four characters of the current signing secret, to tell secrets apart; the secret itself is shown only at creation and rotation' },
    secret_created_at: { type: 'string', format: 'date-time', description: 'When the current secret was made' },
    has_previous_secret: { type: 'boolean', description: 'The secret before the last rotation still signs, until previous_secret_expires_at' },
    previous_secret_expires_at: { ...nullable('string'), format: 'date-time', description: 'When the previous secret stops signing (24 hours after a rotation); null when there is none' },
    rotation_recommended: { type: 'boolean', description: 'True once the current secret is over a year old: rotate it' },
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
  properties: {
    ...endpointSchema.properties,
    secret: { type: 'string', description: 'whsec_…, shown only in this answer' },
    secret_rotated_at: { type: 'string', format: 'date-time', description: 'After a rotation: when the new secret was made' },
  },
};
const deliveryParams = {
  type: 'object',
  properties: { id: { ...idParams.properties.id, description: 'The webhook endpoint (`we_…`)' }, deliveryId: { ...idParams.properties.id, description: 'The delivery (`whd_…`)' } },
  required: ['id', 'deliveryId'],
};
const enabledEvents = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: { type: 'string', minLength: 1, maxLength: 100 },
  description:
    'The event types to receive (docs/events.md), or `*` for all: each needs the read scope of its family on the credential (`payout.paid`: `payouts.read`; `*`: them all), else `IKW-AUT-004`; a type not in the catalogue is `IKW-WHK-002`',
};

/** /api/v1/webhook-endpoints: register, list, read, update, rotate the signing secret, send a test event, delete; an endpoint's deliveries. */
export function webhookEndpointsRoutes(knex: Knex, clock: Clock, endpoints: WebhookEndpoints, testEvents: WebhookTestEvents): RouteGroup {
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
        description: [
          'Registers a URL to receive the events of `enabled_events`, signed in the Standard Webhooks manner (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds `secret` (`whsec_…`), **shown this once**: store it to verify deliveries. Sandbox and live have their own endpoints and secrets.',
          '',
          "The URL is checked, never contacted: `https` (`http` in sandbox only), no private or loopback address (`IKW-WHK-001`). Each type needs its family's read scope on the credential (`IKW-AUT-004`), so an endpoint receives only what its creator could read. Send a test event (`…/send_test_event`) to check your receiver.",
        ].join('\n'),
        refusals: ['IKW-WHK-001', 'IKW-WHK-002'],
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
        description:
          "The merchant's webhook endpoints of the environment, newest first, cursor-paged (`limit`, `starting_after`, `ending_before`). Each shows its `status` (`failing` when deliveries fail) and `secret_last4`, never the secret.",
        auth: read,
        query: cursorQuery(),
        response: cursorListSchema(endpointSchema),
        handler: (ctx) => listWebhookEndpoints(knex, ctx.owner, ctx.query, '/api/v1/webhook-endpoints', clock.now()),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/webhook-endpoints/:id',
        summary: 'Retrieve a webhook endpoint (the secret is never shown again, only its last four characters)',
        description:
          "One endpoint: its URL, event types, whether it is enabled, its `status` (`failing` after a delivery failed every retry) and its secrets' state (`secret_last4`, the previous secret's expiry during a rotation, `rotation_recommended`). Another merchant's endpoint, one of the other environment or a deleted one is `404 IKW-RES-001`.",
        auth: read,
        params: idParams,
        response: endpointSchema,
        handler: async (ctx) => webhookEndpointObject(await load(ctx.owner, ctx.params.id), clock.now()),
      }),
      route<EndpointBody, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/webhook-endpoints/:id',
        summary: 'Update the URL, the event types or whether the endpoint is enabled',
        description:
          'Changes the fields given: `url`, `enabled_events` (replaced whole), `enabled`. `enabled: false` pauses the endpoint (deliveries meanwhile are `skipped`; replay their events later by `event_id`), and is the way to stop one without deleting it. An update that leaves the endpoint receiving is checked as a creation is: the URL (`IKW-WHK-001`), the types (`IKW-WHK-002`) and the scopes they need (`IKW-AUT-004`); disabling needs only `webhooks.write`.',
        refusals: ['IKW-WHK-001', 'IKW-WHK-002'],
        auth: write,
        fields: { enabledEvents: 'enabled_events', endpointId: 'id' },
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { url, enabled_events: enabledEvents, enabled: { type: 'boolean', description: 'false pauses the endpoint; true sends to it again' } },
        },
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
        description:
          'Makes a new signing secret, shown in this answer only. For 24 hours deliveries carry a signature with each secret, so receivers verify with either while you deploy the new one; then the previous one stops signing (`previous_secret_expires_at`). Rotate when `rotation_recommended` says so, or at once if a secret leaked.',
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
          'Send the endpoint alone a signed test event (`evt_test_…`, `test: true`) of `type`, one it listens to (default: its first subscribed type, or payment_intent.succeeded for `*`); answers the queued delivery, which is sent, retried and replayed like any other. The events list never shows it',
        description: [
          'Sends this endpoint alone an example event of `type`, signed and delivered exactly as a real webhook of that type, to check that your receiver gets, verifies and answers webhooks. The event is marked `"test": true` and every id in it holds `_test_` (`evt_test_…`, `po_test_…`): it names no real object and moves no money.',
          '',
          "The answer (`202`) is the queued delivery; follow its attempts in the endpoint's deliveries. A type the endpoint does not listen to is `400 IKW-VAL-001` (`param: type`); a disabled endpoint is `409 IKW-RES-002`. The events API never lists test events.",
        ].join('\n'),
        refusals: ['IKW-RES-002'],
        auth: write,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            type: {
              type: 'string',
              minLength: 1,
              maxLength: 100,
              description: 'An event type the endpoint listens to (docs/events.md); its first `enabled_events` type when absent (`payment_intent.succeeded` for `*`)',
            },
          },
        },
        status: 202,
        response: deliveryWithAttemptsSchema,
        handler: (ctx) => testEvents.sendTest(ctx.owner, ctx.params.id, ctx.body.type),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/webhook-endpoints/:id',
        fields: { endpointId: 'id' },
        summary: 'Delete a webhook endpoint: nothing is sent to it again (deliveries still queued are skipped) and it, its deliveries included, is no longer found',
        description:
          'Deletes the endpoint for good: nothing is sent to it again (deliveries still queued are `skipped`), and it and its deliveries are no longer found (`404`). To pause an endpoint instead, update it with `enabled: false`.',
        auth: write,
        params: idParams,
        response: {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: {
            id: { type: 'string', description: "The deleted endpoint's id" },
            object: { const: 'webhook_endpoint', description: 'The kind of object: always `webhook_endpoint`' },
            deleted: { const: true, description: 'Always true' },
          },
        },
        handler: async (ctx) => {
          await endpoints.delete(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'webhook_endpoint', deleted: true };
        },
      }),
      route<unknown, CursorQuery & { status?: DeliveryStatus }, { id: string }>({
        method: 'get',
        path: '/api/v1/webhook-endpoints/:id/deliveries',
        summary: "List the endpoint's deliveries, newest first; `status` filters (pending, retrying, succeeded, failed, skipped)",
        description:
          "The endpoint's deliveries, newest first (the order they were queued), cursor-paged: each event sent to it, with its status, attempt count and next attempt. Filter by `status` to find the failed ones, then replay them (`POST /api/v1/webhook-replays`). Retrieve one delivery for its attempts and the endpoint's answers.",
        auth: read,
        params: idParams,
        query: cursorQuery({ status: { enum: [...DELIVERY_STATUSES], description: 'Only deliveries in this status', 'x-enumDescriptions': DELIVERY_STATUS_WORDS } }),
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
        description:
          "One delivery with every attempt, first to last: when it started, how long the endpoint took, its status, the error and the first 4 KiB of its answer's body: what you need to see why your receiver refused a webhook. A delivery that is not this endpoint's is `404 IKW-RES-001` (`param: deliveryId`).",
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
