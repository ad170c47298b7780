import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { templates } from '../index.js';
import { templateEngineRoutes } from './templates.js';

/** The templates family's routers: the family list (packages/families/index.ts) pairs them with its manifest. The template engine (docs/templates.md). */
export const templatesRouters: FamilyRouters<EdgeSystemOf<typeof templates>> = {
  routers: [(system) => templateEngineRoutes(system.knex, system.clock, system.templates)],
};
