import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { statements } from '../index.js';
import { operatorStatementsRoutes, statementsRoutes } from './statements.js';

/** The statements family's routers: the family list (packages/families/index.ts) pairs them with its manifest. Statements a finance team can file (docs/statements.md). */
export const statementsRouters: FamilyRouters<EdgeSystemOf<typeof statements>> = {
  routers: [(system) => statementsRoutes(system.knex, system.statements, system.statementDownloadLinks), (system) => operatorStatementsRoutes(system.knex, system.statements, system.statementDownloadLinks)],
};
