import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { disputes } from '../index.js';
import { disputesRoutes } from './disputes.js';

/** The disputes family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Card disputes of live payments, from Paystack (docs/disputes.md). */
export const disputesRouters: FamilyRouters<EdgeSystemOf<typeof disputes>> = {
  routers: [(system) => disputesRoutes(system.knex, { evidence: system.disputeEvidence, acceptance: system.disputeAcceptance })],
};
