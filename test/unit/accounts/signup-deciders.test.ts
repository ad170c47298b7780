/** The deciders behind sign-up, links and invitations, as specifications (docs/accounts.md). */
import t from '#tap';
import { organizationDecider, type OrganizationCommand } from '#packages/families/accounts/organization/decider.js';
import { userDecider, type UserCommand } from '#packages/families/accounts/user/decider.js';
import { verificationDecider, type VerificationCommand } from '#packages/families/accounts/verification/decider.js';
import { spec } from '../../support/decider-spec.js';

const verifications = spec(verificationDecider);
const users = spec(userDecider);
const organizations = spec(organizationDecider);
const at = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(at.getTime() + ms);
const MINUTE = 60_000;

const started: VerificationCommand = {
  type: 'start',
  challenge: { challengeId: 'c1', purpose: 'signup_email', userId: null, channel: 'email', address: 'a@b.example', codeHash: 'h', expiresAt: later(10 * MINUTE).toISOString(), at: at.toISOString() },
};
const verify = (codeMatches: boolean, when = at): VerificationCommand => ({ type: 'verify', codeMatches, at: when });
const consume = (address = 'a@b.example', when = at): VerificationCommand => ({ type: 'consume', purpose: 'signup_email', address, userId: 'u1', at: when });

t.test('a code: right in time verifies, wrong spends a try, five wrong or late is spent', async (t) => {
  verifications
    .given(verifications.history(started))
    .when(verify(true))
    .thenMatch(t, [{ type: 'verification.succeeded' }]);
  verifications
    .given(verifications.history(started))
    .when(verify(false))
    .thenMatch(t, [{ type: 'verification.failed', data: { attempts: 1 } }]);
  const fiveWrong = verifications.history(started, verify(false), verify(false), verify(false), verify(false), verify(false));
  verifications.given(fiveWrong).when(verify(true)).thenThrows(t, 'IKW-ACC-006');
  verifications
    .given(verifications.history(started))
    .when(verify(true, later(10 * MINUTE)))
    .thenThrows(t, 'IKW-ACC-006');
  verifications.given().when(verify(true)).thenThrows(t, 'IKW-RES-001');
  verifications.given(verifications.history(started)).when(started).thenNothing(t);
});

t.test('a verified code is used once, for its address, within the hour', async (t) => {
  const verified = verifications.history(started, verify(true));
  verifications
    .given(verified)
    .when(consume())
    .thenMatch(t, [{ type: 'verification.consumed', data: { userId: 'u1' } }]);
  verifications.given(verifications.history(started)).when(consume()).thenThrows(t, 'IKW-ACC-007');
  verifications.given(verified).when(consume('other@b.example')).thenThrows(t, 'IKW-ACC-007');
  verifications
    .given(verified)
    .when(consume('a@b.example', later(60 * MINUTE)))
    .thenThrows(t, 'IKW-ACC-006');
  verifications
    .given(verifications.history(started, verify(true), consume()))
    .when(consume())
    .thenThrows(t, 'IKW-ACC-006');
  verifications
    .given(verifications.history(started, verify(true), consume()))
    .when(verify(true))
    .thenThrows(t, 'IKW-ACC-006');
});

const create: UserCommand = { type: 'create', user: { userId: 'u1', email: 'a@b.example', name: 'A', phone: null, passwordHash: 'h0', createdAt: at.toISOString() } };
const session: UserCommand = {
  type: 'start_session',
  session: { sessionId: 's1', refreshHash: 'r1', organizationId: 'o1', merchantId: 'm1', userAgent: null, ip: null, proof: { method: 'password', secondFactor: null } },
  expiresAt: later(60 * MINUTE),
  at,
};
const issue = (kind: 'magic_link' | 'password_reset', tokenHash: string): UserCommand => ({
  type: 'issue_token',
  token: { tokenId: `t-${tokenHash}`, kind, tokenHash, sentTo: 'a@b.example', expiresAt: later(15 * MINUTE).toISOString(), at: at.toISOString() },
  at,
});
const use = (kind: 'magic_link' | 'password_reset', tokenHash: string, when = at): UserCommand => ({ type: 'use_token', kind, tokenHash, passwordHash: 'h1', at: when });

t.test('links: once, in time, of their kind; a reset sets the password and ends every session', async (t) => {
  const issued = users.history(create, session, issue('magic_link', 'm'), issue('password_reset', 'p'));
  users
    .given(issued)
    .when(use('magic_link', 'm'))
    .thenMatch(t, [{ type: 'user.token_used', data: { tokenId: 't-m' } }]);
  users
    .given(users.history(create, session, issue('magic_link', 'm'), use('magic_link', 'm')))
    .when(use('magic_link', 'm'))
    .thenThrows(t, 'IKW-ACC-006');
  users.given(issued).when(use('magic_link', 'p')).thenThrows(t, 'IKW-ACC-006', 'a reset link is not a magic link');
  users
    .given(issued)
    .when(use('magic_link', 'm', later(15 * MINUTE)))
    .thenThrows(t, 'IKW-ACC-006');
  users.given().when(use('magic_link', 'm')).thenThrows(t, 'IKW-ACC-006', 'no such user');
  users
    .given(issued)
    .when(use('password_reset', 'p'))
    .thenMatch(t, [{ type: 'user.token_used' }, { type: 'user.password_changed', data: { passwordHash: 'h1' } }, { type: 'user.session_revoked', data: { sessionId: 's1', reason: 'password_reset' } }]);
  // Sign-in and reset links went to the old address: a change of address ends them.
  const moved = users.given(issued).history({ type: 'change_credentials', email: 'new@b.example', keep: null, at });
  users.given(moved).when(use('magic_link', 'm')).thenThrows(t, 'IKW-ACC-006', 'a magic link to the old address');
  users.given(moved).when(use('password_reset', 'p')).thenThrows(t, 'IKW-ACC-006', 'a reset link to the old address');
});

const org: OrganizationCommand = {
  type: 'create',
  organization: { organizationId: 'o1', displayName: 'O', country: 'SN', type: 'business', parentId: null, createdAt: at.toISOString() },
  merchantId: 'm1',
  member: { userId: 'owner', role: 'owner' },
  at,
};
const invitation = (email: string, role: 'admin' | 'owner' | 'viewer' = 'viewer', tokenHash = `h-${email}`) => ({
  organizationId: 'o1',
  invitationId: `i-${email}`,
  email,
  role,
  tokenHash,
  invitedBy: 'owner',
  expiresAt: later(7 * 1440 * MINUTE).toISOString(),
  at: at.toISOString(),
});
const invite = (by: string, email: string, role: 'admin' | 'owner' | 'viewer' = 'viewer', existingUserId: string | null = null): OrganizationCommand => ({ type: 'invite', by, invitation: invitation(email, role), existingUserId, at });

t.test('invitations: managers invite, once per address, never a member; accepted once, adding the member', async (t) => {
  const base = organizations.history(org, { type: 'add_member', userId: 'v', role: 'viewer', at }, { type: 'add_member', userId: 'adm', role: 'admin', at });
  organizations
    .given(base)
    .when(invite('owner', 'x@b.example'))
    .thenMatch(t, [{ type: 'organization.invitation_created', data: { email: 'x@b.example' } }]);
  organizations.given(base).when(invite('v', 'x@b.example')).thenThrows(t, 'IKW-ACC-002');
  organizations
    .given(base)
    .when(invite('adm', 'x@b.example', 'owner'))
    .thenThrows(t, 'IKW-ACC-002');
  organizations
    .given(base)
    .when(invite('owner', 'v@b.example', 'viewer', 'v'))
    .thenThrows(t, 'IKW-ACC-008');
  const invited = organizations.given(base).history(invite('owner', 'x@b.example'));
  organizations.given(invited).when(invite('adm', 'x@b.example')).thenThrows(t, 'IKW-ACC-008');
  const accept: OrganizationCommand = { type: 'accept_invitation', tokenHash: 'h-x@b.example', userId: 'x', at };
  organizations
    .given(invited)
    .when(accept)
    .thenMatch(t, [{ type: 'organization.invitation_accepted' }, { type: 'organization.member_added', data: { userId: 'x', role: 'viewer' } }]);
  organizations.given(organizations.given(invited).history(accept)).when(accept).thenThrows(t, 'IKW-ACC-006');
  organizations
    .given(invited)
    .when({ ...accept, at: later(7 * 1440 * MINUTE) })
    .thenThrows(t, 'IKW-ACC-006');
  organizations.given(invited).when({ type: 'revoke_invitation', by: 'v', invitationId: 'i-x@b.example', at }).thenThrows(t, 'IKW-ACC-002');
  organizations
    .given(invited)
    .when({ type: 'revoke_invitation', by: 'adm', invitationId: 'i-x@b.example', at })
    .thenMatch(t, [{ type: 'organization.invitation_revoked' }]);
  organizations.given(invited).when({ type: 'revoke_invitation', by: 'adm', invitationId: 'nope', at }).thenThrows(t, 'IKW-RES-001');
});
