import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { checkout } from '../index.js';
import type { assets } from '#packages/families/assets/index.js';
import { pageMerchantOf } from '#packages/families/assets/http/index.js';
import { checkoutApiRoutes } from './checkout-api.js';
import { checkoutPagesRoutes } from './checkout-pages.js';
import { checkoutSessionsRoutes } from './checkout-sessions.js';
import { payRoutes } from './pay.js';
import { paymentLinksRoutes } from './payment-links.js';

/** The checkout family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Hosted checkout: sessions, their page and its API, payment links (docs/checkout.md). */
export const checkoutRouters: FamilyRouters<EdgeSystemOf<typeof checkout, [typeof assets]>> = {
  routers: [
    (system) => checkoutSessionsRoutes(system.knex, system.clock, system.checkoutSessionOpening, system.checkoutSessionPayments),
    (system) => checkoutApiRoutes(system.knex, system.clock, system.checkoutSessionPayments, system.templateComposer),
    (system) => checkoutPagesRoutes(system.knex, system.clock, system.checkoutSessionPayments, system.checkoutBrowserMarks, system.config.publicUrl.startsWith('https:'), pageMerchantOf(system.knex, system.assets)),
    (system) => paymentLinksRoutes(system.knex, system.paymentLinks),
    (system) => payRoutes(system.knex, system.checkoutSessionOpening, system.config.publicUrl, pageMerchantOf(system.knex, system.assets)),
  ],
};
