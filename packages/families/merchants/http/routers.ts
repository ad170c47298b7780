import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { merchants } from '../index.js';
import { liveActivationRoutes } from './live-activation.js';
import { merchantApiKeysRoutes } from './merchant-api-keys.js';
import { onboardingRoutes } from './onboarding.js';

/** The merchants family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const merchantsRouters: FamilyRouters<EdgeSystemOf<typeof merchants>> = {
  routers: [
    (system) => onboardingRoutes(system.knex),
    // Whether live is open: the outcome of the activation application (docs/configuration.md, "Live activation").
    (system) => liveActivationRoutes(system.knex),
  ],
  keyScoped: [(system, keyScopes) => merchantApiKeysRoutes(system.knex, system.clock, system.apiKeyManagement, keyScopes)],
};
