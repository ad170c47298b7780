import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { operators } from '../index.js';
import type { risk } from '#packages/families/risk/index.js';
import type { activation } from '#packages/families/activation/index.js';
import type { payouts } from '#packages/families/payouts/index.js';
import type { assets } from '#packages/families/assets/index.js';
import { operatorApplicationsRoutes } from './applications.js';
import { operatorAuthRoutes } from './auth.js';
import { operatorLimitsRoutes } from './limits.js';
import { operatorMerchantsRoutes } from './merchants.js';
import { operatorPasskeysRoutes } from './passkeys.js';
import { operatorPayoutsRoutes } from './payouts.js';
import { operatorRiskRulesRoutes } from './risk-rules.js';
import { operatorTeamRoutes } from './team.js';

/** The operators family's routers: the family list (packages/families/index.ts) pairs them with its manifest. The platform's operators: their sign-in, team, and the merchants they run (docs/operator.md). */
export const operatorsRouters: FamilyRouters<EdgeSystemOf<typeof operators, [typeof risk, typeof activation, typeof payouts, typeof assets]>> = {
  routers: [
    (system) => operatorAuthRoutes(system.knex, system.operators, system.config.publicUrl.startsWith('https:')),
    (system) => operatorPasskeysRoutes(system.operators, system.operatorPasskeys),
    (system) => operatorTeamRoutes(system.knex, system.operators),
    (system) => operatorMerchantsRoutes(system.knex, system.store),
    (system) => operatorLimitsRoutes(system.knex, system.merchantLimits),
    (system) => operatorRiskRulesRoutes(system.platformRiskRules),
    (system) => operatorApplicationsRoutes(system.knex, system.activationApplications, system.assets),
    (system) => operatorPayoutsRoutes(system.knex, system.payoutReviews),
  ],
};
