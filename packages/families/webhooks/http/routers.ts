import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { webhooks } from '../index.js';
import { eventsRoutes } from './events.js';
import { webhookEndpointsRoutes } from './webhook-endpoints.js';
import { webhookReplaysRoutes } from './webhook-replays.js';

/** The webhooks family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const webhooksRouters: FamilyRouters<EdgeSystemOf<typeof webhooks>> = {
  routers: [
    (system) => webhookEndpointsRoutes(system.knex, system.clock, system.webhookEndpoints, system.webhookTestEvents),
    (system) => webhookReplaysRoutes(system.webhookReplays),
    // The events webhooks carry, for clients that missed some and for `sika listen` (docs/webhooks.md).
    (system) => eventsRoutes(system.knex, system.clock, system.eventWaits, system.publicEvents),
  ],
};
