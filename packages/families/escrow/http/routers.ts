import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { escrow } from '../index.js';
import { escrowRoutes } from './escrow.js';

/** The escrow family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const escrowRouters: FamilyRouters<EdgeSystemOf<typeof escrow>> = {
  routers: [(system) => escrowRoutes(system.knex, { contracts: system.escrowContracts, funding: system.escrowFunding, refunds: system.escrowRefunds, releases: system.escrowReleases, disputes: system.escrowDisputes })],
};
