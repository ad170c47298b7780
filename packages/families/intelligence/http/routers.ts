import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { intelligence } from '../index.js';
import { contextIntelligenceRoutes, intelligenceRoutes } from './intelligence.js';

/** The intelligence family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Intelligence and context suggestions (docs/intelligence.md). */
export const intelligenceRouters: FamilyRouters<EdgeSystemOf<typeof intelligence>> = {
  routers: [(system) => intelligenceRoutes(system.knex, system.clock), (system) => contextIntelligenceRoutes(system.knex, system.clock)],
};
