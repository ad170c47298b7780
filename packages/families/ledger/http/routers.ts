import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { ledger } from '../index.js';
import { balanceTransactionsRoutes } from './balance-transactions.js';
import { balanceRoutes } from './balance.js';

/** The ledger family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const ledgerRouters: FamilyRouters<EdgeSystemOf<typeof ledger>> = {
  routers: [(system) => balanceRoutes(system.knex), (system) => balanceTransactionsRoutes(system.knex)],
};
