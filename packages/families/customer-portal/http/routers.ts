import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { customerPortal } from '../index.js';
import type { billing } from '#packages/families/billing/index.js';
import type { assets } from '#packages/families/assets/index.js';
import { pageMerchantOf } from '#packages/families/assets/http/index.js';
import { customerPortalPagesRoutes } from './customer-portal-pages.js';
import { customerPortalRoutes } from './customer-portal.js';

/** The customer-portal family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const customerPortalRouters: FamilyRouters<EdgeSystemOf<typeof customerPortal, [typeof billing, typeof assets]>> = {
  routers: [
    (system) => customerPortalRoutes(system.knex, system.clock, system.customerPortal, system.billing),
    (system) => customerPortalPagesRoutes(system.knex, system.clock, system.customerPortal, system.billing, system.config.publicUrl.startsWith('https:'), pageMerchantOf(system.knex, system.assets)),
  ],
};
