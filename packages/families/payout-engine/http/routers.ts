import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { payoutEngine } from '../index.js';
import { payoutEngineRoutes } from './payout-engine.js';

/** The payout-engine family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const payoutEngineRouters: FamilyRouters<EdgeSystemOf<typeof payoutEngine>> = {
  routers: [(system) => payoutEngineRoutes(system.knex, system.payoutRecipients, system.payoutBatchCreation, system.payoutBatchExecution)],
};
