import type { ReadSide } from '#packages/read-models/read-side.js';
import { usersProjection } from './users.js';
import { userSessionsProjection } from './user-sessions.js';
import { userPasskeysProjection } from './user-passkeys.js';
import { userSecurityEventsProjection } from './user-security-events.js';
import { organizationsProjection } from './organizations.js';
import { organizationInvitationsProjection } from './organization-invitations.js';

/** Dashboard accounts: users, their sessions, passkeys and security events, organizations and invitations. */
export const accountsReadSide: ReadSide = {
  family: 'accounts',
  readModels: [usersProjection, userSessionsProjection, userPasskeysProjection, userSecurityEventsProjection, organizationsProjection, organizationInvitationsProjection],
};

// The queries other code reads this family by.
export { findUser } from './users.js';
export { listLiveSessions, liveSessionRole } from './user-sessions.js';
export { type PasskeyRow, listPasskeys } from './user-passkeys.js';
export { listSecurityEvents } from './user-security-events.js';
export { type MemberRow, type MembershipRow, findMembership, listMembers, listMembersOfMerchant, listMemberships, organizationOfMerchant, verifiedTeamContacts } from './organizations.js';
export { type InvitationRow, findInvitation, listInvitations } from './organization-invitations.js';
