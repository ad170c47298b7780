import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { assets } from '../index.js';
import { assetsRoutes } from './assets.js';

/** The assets family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Merchants' files (docs/assets.md). */
export const assetsRouters: FamilyRouters<EdgeSystemOf<typeof assets>> = {
  routers: [(system) => assetsRoutes(system.knex, system.assets)],
};
