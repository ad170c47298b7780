import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { marketplace } from '../index.js';
import { marketplaceRoutes } from './marketplace.js';

/** The marketplace family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const marketplaceRouters: FamilyRouters<EdgeSystemOf<typeof marketplace>> = {
  routers: [(system) => marketplaceRoutes(system.knex, system.marketplace)],
};
