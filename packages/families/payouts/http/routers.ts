import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { payouts } from '../index.js';
import type { customerPortal } from '#packages/families/customer-portal/index.js';
import { banksRoutes } from './banks.js';
import { merchantPayoutsRoutes } from './merchant-payouts.js';
import { merchantSettingsRoutes } from './merchant-settings.js';
import { payoutsRoutes } from './payouts.js';

/** The payouts family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const payoutsRouters: FamilyRouters<EdgeSystemOf<typeof payouts, [typeof customerPortal]>> = {
  routers: [
    (system) => payoutsRoutes(system.knex, system.payouts, system.payoutReviews),
    (system) => merchantPayoutsRoutes(system.knex, system.payouts),
    (system) => banksRoutes(system.payoutBanks, system.accountHolders),
    // Payout settings and methods, and (until merchant settings are split) the portal settings.
    (system) => merchantSettingsRoutes(system.knex, system.store, system.clock, system.merchantPayoutSettings, system.portalSettings, system.config.publicUrl),
  ],
};
