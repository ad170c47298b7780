import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { funding } from '../index.js';
import type { assets } from '#packages/families/assets/index.js';
import { pageMerchantOf } from '#packages/families/assets/http/index.js';
import { fundingPagesRoutes } from './funding-pages.js';
import { fundingRoutes } from './funding.js';

/** The funding family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Funding campaigns and their public pages (docs/funding.md). */
export const fundingRouters: FamilyRouters<EdgeSystemOf<typeof funding, [typeof assets]>> = {
  routers: [
    (system) => fundingRoutes(system.knex, { campaigns: system.fundingCampaigns, contributions: system.fundingContributions, payouts: system.campaignPayouts, updates: system.campaignUpdates }),
    (system) => fundingPagesRoutes(system.knex, system.fundingContributions, pageMerchantOf(system.knex, system.assets)),
  ],
};
