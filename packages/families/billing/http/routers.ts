import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { billing } from '../index.js';
import type { assets } from '#packages/families/assets/index.js';
import { pageMerchantOf } from '#packages/families/assets/http/index.js';
import { billingRoutes } from './billing.js';
import { merchantCustomersRoutes } from './merchant-customers.js';
import { merchantInvoicesRoutes } from './merchant-invoices.js';
import { merchantProductsRoutes } from './merchant-products.js';
import { merchantRefundsRoutes } from './merchant-refunds.js';
import { merchantSubscriptionsRoutes } from './merchant-subscriptions.js';

/** The billing family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Merchant billing and the billing family: one model (docs/billing.md). */
export const billingRouters: FamilyRouters<EdgeSystemOf<typeof billing, [typeof assets]>> = {
  routers: [
    (system) => merchantCustomersRoutes(system.knex, system.billing.customers, (owner, id) => system.savedCards(owner, id)),
    (system) => merchantProductsRoutes(system.knex, system.billing.products, (id, at) => system.billing.subscriptions.isStaleAttachment(id, at)),
    (system) => merchantSubscriptionsRoutes(system.knex, system.billing.subscriptions),
    (system) => merchantInvoicesRoutes(system.knex, system.billing, system.templateComposer, system.clock, pageMerchantOf(system.knex, system.assets)),
    (system) => merchantRefundsRoutes(system.knex, system.billing.refunds),
    (system) => billingRoutes(system.knex, system.billing),
  ],
};
