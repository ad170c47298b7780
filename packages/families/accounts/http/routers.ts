import type { EdgeSystemOf, FamilyRouters } from '#packages/families/family.js';
import type { accounts } from '../index.js';
import { authGoogleRoutes } from './auth-google.js';
import { authPasskeysRoutes } from './auth-passkeys.js';
import { authSecurityRoutes } from './auth-security.js';
import { authSignUpRoutes } from './auth-signup.js';
import { authRoutes, sessionCookiesOf } from './auth.js';
import { invitationsRoutes } from './invitations.js';
import { merchantTeamRoutes } from './merchant-team.js';
import { organizationsRoutes } from './organizations.js';

/** The accounts family's routers: the family list (packages/families/index.ts) pairs them with its manifest. */
export const accountsRouters: FamilyRouters<EdgeSystemOf<typeof accounts>> = {
  routers: [
    (system) => authRoutes(system.accounts, system.userSessions, system.signIns, system.knex, system.clock, sessionCookiesOf(system.config.publicUrl)),
    (system) => authSecurityRoutes(system.knex, system.clock, system.secondFactors, system.signIns, system.contactChanges, sessionCookiesOf(system.config.publicUrl)),
    (system) => authPasskeysRoutes(system.knex, system.passkeys, system.signIns, sessionCookiesOf(system.config.publicUrl)),
    (system) => authSignUpRoutes(system.accounts, system.verifications, system.signUp, system.signIns, sessionCookiesOf(system.config.publicUrl)),
    (system) => authGoogleRoutes(system.google),
    (system) => invitationsRoutes(system.signUp, sessionCookiesOf(system.config.publicUrl)),
    (system) => organizationsRoutes(system.knex, system.userSessions, system.organizations),
    (system) => merchantTeamRoutes(system.knex, system.clock, system.organizations),
  ],
};
