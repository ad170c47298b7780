import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { automations } from '../index.js';
import { automationsRoutes } from './automations.js';

/** The automations family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Automations (docs/automations.md). */
export const automationsRouters: FamilyRouters<EdgeSystemOf<typeof automations>> = {
  routers: [(system) => automationsRoutes(system.knex, system.clock, system.automations, system.automationTriggers, system.automationRuns, system.publicEvents)],
};
