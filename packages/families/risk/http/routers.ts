import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { risk } from '../index.js';
import { limitsRoutes, riskRulesRoutes } from './risk.js';

/** The risk family's routers: the family list (packages/families/index.ts) pairs them with its manifest. The risk team's limits and holds, as the merchant reads them (docs/limits.md). */
export const riskRouters: FamilyRouters<EdgeSystemOf<typeof risk>> = {
  routers: [(system) => limitsRoutes(system.knex, system.merchantLimits), (system) => riskRulesRoutes(system.riskRules)],
};
