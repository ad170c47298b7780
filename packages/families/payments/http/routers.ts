import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { payments } from '../index.js';
import type { assets } from '#packages/families/assets/index.js';
import { pageMerchantOf } from '#packages/families/assets/http/index.js';
import { operationsRoutes } from './operations.js';
import { paymentIntentsRoutes } from './payment-intents.js';
import { sandboxRoutes } from './sandbox.js';

/** The payments family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const paymentsRouters: FamilyRouters<EdgeSystemOf<typeof payments, [typeof assets]>> = {
  routers: [
    (system) => paymentIntentsRoutes(system.knex, system.paymentIntents, system.paymentIntentOtps),
    (system) => operationsRoutes(system.knex, pageMerchantOf(system.knex, system.assets), system.collectionOutcomes),
    (system) => sandboxRoutes(system.knex, system.collectionOutcomes),
  ],
};
