import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { ApiError, notFound } from '#packages/core/errors.js';
import type { Kernel } from '#packages/families/kernel.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { requestsWaited, type EventWaits } from '../event-waits.js';
import { findEvent, listEvents, readableTypes, type EventFilters } from '../events-api.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { createdQuery, createdRange, cursorListSchema, cursorQuery, eventSchema, idParams, type CreatedQuery } from '#packages/http/route-kit.js';

/** The longest a list may wait for a new event (`wait`), within the load balancers' idle timeouts. */
export const MAX_WAIT_S = 30;

type ListQuery = CursorQuery & CreatedQuery & { type?: string | string[]; wait?: number };

/** `type` given once, repeated, or comma-separated: each filter (`*`, a type, or `family.*`) on its own. */
function typeFilters(type: string | string[] | undefined): string[] | undefined {
  if (type === undefined) return undefined;
  return (Array.isArray(type) ? type : [type]).flatMap((t) => t.split(',')).map((t) => t.trim());
}

/**
 * GET /api/v1/events: the merchant's public events of the last 30 days, in the caller's environment,
 * of the families the credential reads (docs/accounts.md, "Events and scopes"; another is not found),
 * each exactly as its webhook deliveries carry it (docs/webhooks.md, "Missed webhooks"). Newest
 * first; `ending_before` pages toward newer ones, and with `wait` the answer waits up to that many
 * seconds for one when there is none yet (long polling: what `sika listen` follows), within the
 * credential's and merchant's slots, the time waited counting against the rate limit.
 */
export function eventsRoutes(knex: Knex, clock: Clock, waits: EventWaits, publicEvents: Kernel['publicEvents']): RouteGroup {
  const auth = { scope: 'events.read', environmentHeader: 'optional' } as const;
  return {
    name: 'events',
    description: 'The public events of the last 30 days exactly as webhooks carry them, for catching up after downtime.',
    routes: [
      route<unknown, ListQuery>({
        method: 'get',
        path: '/api/v1/events',
        summary:
          'List the public events of the last 30 days, newest first, as their webhooks carry them; `type` filters (repeated or comma-separated; `payout.*` for a family); `wait` (seconds, with `ending_before` or no cursor) waits for a newer event when there is none, a few waits at once per credential and per merchant (beyond: 429 IKW-LIM-002)',
        description: [
          "The merchant's public events of the last 30 days in the environment, newest first, each exactly as its webhooks carry it: how a server that was down catches up. Page with `ending_before` from the last event you handled (or `created[gte]` from when you went down) and handle each by `id`, as its webhook. Only the families the credential reads are listed (`payout.*` needs `payouts.read`); test events never are.",
          '',
          '`type` filters by type or family; a filter naming no type is `400 IKW-VAL-001` and one the credential cannot read `403 IKW-AUT-004`, so neither looks like a quiet day. `wait` (up to 30 s, with `ending_before` or no cursor) long-polls for a newer event when there is none: a few waits at once per credential and merchant (`429 IKW-LIM-002` beyond), and the time waited counts against the rate limit (docs/webhooks.md).',
        ].join('\n'),
        refusals: ['IKW-LIM-002'],
        auth,
        query: cursorQuery({
          type: {
            description: 'Only these event types: one, several (repeated or comma-separated), or a family (`payout.*`); `*` is every type the credential reads',
            anyOf: [
              { type: 'string', minLength: 1, maxLength: 2000 },
              { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 100 } },
            ],
          },
          ...createdQuery,
          wait: { type: 'integer', minimum: 0, maximum: MAX_WAIT_S, description: `Seconds (up to ${MAX_WAIT_S}) to wait for a newer event when there is none yet (long polling); with \`ending_before\` or no cursor` },
        }),
        response: cursorListSchema(eventSchema),
        handler: async (ctx) => {
          const types = readableTypes(publicEvents, ctx.principal.scopes, typeFilters(ctx.query.type));
          const filters: EventFilters = { ...(types ? { types } : {}), created: createdRange(ctx.query) };
          const wait = ctx.query.wait ?? 0;
          if (wait > 0 && ctx.query.starting_after !== undefined) throw new ApiError('IKW-VAL-001', 'wait looks for newer events: use it with ending_before, or with no cursor', 'wait');
          const list = () => listEvents(knex, ctx.owner, ctx.query, filters, clock.now(), '/api/v1/events');
          if (wait === 0) return list();
          const { answer, waitedMs } = await waits.wait({ owner: ctx.owner, credential: ctx.principal.actor, seconds: wait, signal: ctx.signal }, list, (page) => page.data.length > 0);
          await ctx.countRequests(requestsWaited(waitedMs));
          return answer;
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/events/:id',
        summary: 'Retrieve an event of the last 30 days, exactly as its webhooks carry it',
        description:
          'One event of the last 30 days, byte for byte the body its deliveries sent: check a webhook you received against it, or fetch one you missed. An event older than 30 days, of a family the credential cannot read, or a test event is `404 IKW-RES-001`, as one that does not exist.',
        auth,
        params: idParams,
        response: eventSchema,
        handler: async (ctx) => {
          const event = await findEvent(knex, ctx.owner, ctx.params.id, clock.now(), readableTypes(publicEvents, ctx.principal.scopes));
          if (!event) throw notFound('event', ctx.params.id);
          return event;
        },
      }),
    ],
  };
}
