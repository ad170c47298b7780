import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { support } from '../index.js';
import { supportRoutes } from './support.js';

/** The support family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Support intake (docs/support.md). */
export const supportRouters: FamilyRouters<EdgeSystemOf<typeof support>> = {
  routers: [(system) => supportRoutes(system.knex, system.supportTickets, system.rateLimiter)],
};
