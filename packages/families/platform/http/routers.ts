import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { platform } from '../index.js';
import { configurationRoutes } from './configuration.js';
import { paymentCapabilitiesRoutes } from './payment-capabilities.js';

/** The platform family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const platformRouters: FamilyRouters<EdgeSystemOf<typeof platform>> = {
  routers: [(system) => paymentCapabilitiesRoutes(system.knex, system.paymentCapabilities), (system) => configurationRoutes(system.knex, system.countryActivations, system.featureFlags, (country) => system.liveRailChoices(country))],
};
