import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { activation } from '../index.js';
import { activationRoutes } from './activation.js';

/** The activation family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Going live: the merchant's activation application (docs/merchants.md, "Going live"). */
export const activationRouters: FamilyRouters<EdgeSystemOf<typeof activation>> = {
  routers: [(system) => activationRoutes(system.activationApplications)],
};
