import t from '#tap';
import { organizationDecider, type OrganizationCommand } from '#packages/families/accounts/organization/decider.js';
import { userEmailDecider } from '#packages/families/accounts/user-email/decider.js';
import { satisfiesFactorRule, userDecider, type UserCommand } from '#packages/families/accounts/user/decider.js';
import type { SessionProof } from '#packages/families/accounts/user/events.js';
import { spec } from '../../support/decider-spec.js';

const users = spec(userDecider);
const emails = spec(userEmailDecider);
const organizations = spec(organizationDecider);
const at = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(at.getTime() + ms);
const DAY = 86_400_000;
const context = { organizationId: 'org-1', merchantId: 'acct_1' };
const create: UserCommand = { type: 'create', user: { userId: 'u1', email: 'a@b.example', name: 'A', phone: null, passwordHash: 'h', createdAt: at.toISOString() } };
const byPassword: SessionProof = { method: 'password', secondFactor: null };
const start = (sessionId: string, refreshHash: string, proof: SessionProof = byPassword): UserCommand => ({
  type: 'start_session',
  session: { sessionId, refreshHash, ...context, userAgent: null, ip: null, proof },
  expiresAt: later(30 * DAY),
  at,
});
const refresh = (presentedHash: string, refreshHash: string, when = at): UserCommand => ({ type: 'refresh', presentedHash, refreshHash, expiresAt: later(30 * DAY), at: when });

t.test('a user is created once; nothing else happens to a user that does not exist', async (t) => {
  users
    .given()
    .when(create)
    .thenMatch(t, [{ type: 'user.created', data: { userId: 'u1' } }]);
  users.given(users.history(create)).when(create).thenThrows(t, { code: 'IKW-ACC-001', param: 'email' });
  users.given().when(start('s1', 'r1')).thenThrows(t, 'IKW-AUT-007');
});

t.test('refresh tokens rotate; a reused one ends its session; an expired session refreshes no more', async (t) => {
  const started = users.history(create, start('s1', 'r1'));
  const rotated = users
    .given(started)
    .when(refresh('r1', 'r2'))
    .thenMatch(t, [{ type: 'user.session_refreshed', data: { sessionId: 's1', refreshHash: 'r2' } }]);
  users
    .given(rotated)
    .when(refresh('r1', 'r3'))
    .thenMatch(t, [{ type: 'user.session_revoked', data: { sessionId: 's1', reason: 'refresh_token_reused' } }]);
  const stolen = users.given(rotated).history(refresh('r1', 'r3'));
  users.given(stolen).when(refresh('r2', 'r4')).thenThrows(t, 'IKW-AUT-007', 'the rightful holder is out too');
  users.given(stolen).when(refresh('r1', 'r4')).thenThrows(t, 'IKW-AUT-007', 'and the thief stays out');
  users
    .given(started)
    .when(refresh('r1', 'r2', later(31 * DAY)))
    .thenThrows(t, 'IKW-AUT-007');
  users.given(started).when(refresh('unknown', 'r2')).thenThrows(t, 'IKW-AUT-007');
});

t.test('sessions end once: sign-out, revoke, revoke the others', async (t) => {
  const three = users.history(create, start('s1', 'r1'), start('s2', 'r2'), start('s3', 'r3'));
  const out = users
    .given(three)
    .when({ type: 'end_session', sessionId: 's1', reason: 'signed_out', at })
    .thenMatch(t, [{ type: 'user.session_revoked', data: { sessionId: 's1', reason: 'signed_out' } }]);
  users.given(out).when({ type: 'end_session', sessionId: 's1', reason: 'revoked', at }).thenThrows(t, { code: 'IKW-RES-001', param: 'sessionId' });
  users
    .given(out)
    .when({ type: 'end_other_sessions', keep: 's2', at })
    .thenMatch(t, [{ type: 'user.session_revoked', data: { sessionId: 's3', reason: 'other_sessions_revoked' } }], 'only the live others');
  users.given(out).when({ type: 'end_other_sessions', keep: 's1', at }).thenThrows(t, 'IKW-RES-001', 'an ended session cannot act');
  users
    .given(three)
    .when({ type: 'end_session', sessionId: 's2', reason: 'revoked', at: later(31 * DAY) })
    .thenThrows(t, 'IKW-RES-001', 'an expired session is gone');
});

t.test('switching a live session; a default organization set once', async (t) => {
  const one = users.history(create, start('s1', 'r1'));
  const moved = { organizationId: 'org-2', merchantId: 'acct_2' };
  users
    .given(one)
    .when({ type: 'switch_session', sessionId: 's1', context: moved, at })
    .thenMatch(t, [{ type: 'user.session_switched', data: { sessionId: 's1', ...moved } }]);
  users.given(one).when({ type: 'switch_session', sessionId: 'nope', context: moved, at }).thenThrows(t, 'IKW-RES-001');
  const set = users
    .given(one)
    .when({ type: 'set_default_organization', organizationId: 'org-2', at })
    .thenMatch(t, [{ type: 'user.default_organization_set' }]);
  users.given(set).when({ type: 'set_default_organization', organizationId: 'org-2', at }).thenNothing(t);
});

t.test('an address is claimed by one user; the same user claiming again changes nothing', async (t) => {
  const claimed = emails.history({ type: 'claim', email: 'a@b.example', userId: 'u1', at });
  emails.given(claimed).when({ type: 'claim', email: 'a@b.example', userId: 'u1', at }).thenNothing(t);
  emails.given(claimed).when({ type: 'claim', email: 'a@b.example', userId: 'u2', at }).thenThrows(t, { code: 'IKW-ACC-001', param: 'email' });
});

t.test('an organization: created with its merchant and first member; members join once', async (t) => {
  const createOrg: OrganizationCommand = {
    type: 'create',
    organization: { organizationId: 'org-1', displayName: 'Org', country: 'SN', type: 'business', parentId: null, createdAt: at.toISOString() },
    merchantId: 'acct_1',
    member: { userId: 'u1', role: 'owner' },
    at,
  };
  organizations
    .given()
    .when(createOrg)
    .thenMatch(t, [{ type: 'organization.created' }, { type: 'organization.merchant_added', data: { merchantId: 'acct_1' } }, { type: 'organization.member_added', data: { userId: 'u1', role: 'owner' } }]);
  const made = organizations.history(createOrg);
  organizations.given(made).when(createOrg).thenNothing(t, 'a retried creation');
  organizations.given().when({ type: 'add_member', userId: 'u2', role: 'viewer', at }).thenThrows(t, 'IKW-RES-001');
  const joined = organizations
    .given(made)
    .when({ type: 'add_member', userId: 'u2', role: 'viewer', at })
    .thenMatch(t, [{ type: 'organization.member_added', data: { role: 'viewer' } }]);
  organizations.given(joined).when({ type: 'add_member', userId: 'u2', role: 'viewer', at }).thenNothing(t);
  organizations.given(joined).when({ type: 'add_member', userId: 'u2', role: 'admin', at }).thenThrows(t, 'IKW-RES-002');
});

t.test('a new password ends every session but the one that changed it; profile and onboarding decide only changes', async (t) => {
  const two = users.history(create, start('s1', 'r1'), start('s2', 'r2'));
  users
    .given(two)
    .when({ type: 'change_password', passwordHash: 'h2', keep: 's1', at })
    .thenMatch(t, [
      { type: 'user.password_changed', data: { passwordHash: 'h2' } },
      { type: 'user.session_revoked', data: { sessionId: 's2', reason: 'password_changed' } },
    ]);
  users
    .given(two)
    .when({ type: 'change_password', passwordHash: 'h2', keep: null, at })
    .thenMatch(t, [{ type: 'user.password_changed' }, { type: 'user.session_revoked' }, { type: 'user.session_revoked' }], 'a reset keeps none');
  const renamed = users
    .given(two)
    .when({ type: 'update_profile', changes: { name: 'B', language: 'fr', secondaryEmail: undefined }, at })
    .then(t, [{ type: 'user.profile_updated', data: { name: 'B', language: 'fr', at: at.toISOString() } }]);
  users
    .given(renamed)
    .when({ type: 'update_profile', changes: { name: 'B', language: 'fr' }, at })
    .thenNothing(t);
  users
    .given(renamed)
    .when({ type: 'update_profile', changes: { language: null }, at })
    .thenMatch(t, [{ type: 'user.profile_updated', data: { language: null } }]);
  const stepped = users
    .given(two)
    .when({ type: 'update_onboarding', changes: { step: 'kyc' }, at })
    .thenMatch(t, [{ type: 'user.onboarding_updated', data: { step: 'kyc' } }]);
  users
    .given(stepped)
    .when({ type: 'update_onboarding', changes: { step: 'kyc', dismissed: false }, at })
    .thenNothing(t, 'same step, dismissed already false');
});

t.test('members: roles change and members leave under the owner rules; the last owner stays', async (t) => {
  const made = organizations.history(
    {
      type: 'create',
      organization: { organizationId: 'org-1', displayName: 'Org', country: 'SN', type: 'business', parentId: null, createdAt: at.toISOString() },
      merchantId: 'acct_1',
      member: { userId: 'owner', role: 'owner' },
      at,
    },
    { type: 'add_member', userId: 'admin', role: 'admin', at },
    { type: 'add_member', userId: 'dev', role: 'developer', at },
  );
  const given = organizations.given(made);
  given.when({ type: 'change_role', by: 'admin', userId: 'dev', role: 'finance', at }).thenMatch(t, [{ type: 'organization.member_role_changed', data: { userId: 'dev', role: 'finance' } }]);
  given.when({ type: 'change_role', by: 'admin', userId: 'dev', role: 'developer', at }).thenNothing(t, 'the same role');
  given.when({ type: 'change_role', by: 'dev', userId: 'admin', role: 'viewer', at }).thenThrows(t, 'IKW-ACC-002');
  given.when({ type: 'change_role', by: 'admin', userId: 'dev', role: 'owner', at }).thenThrows(t, 'IKW-ACC-002');
  given.when({ type: 'remove_member', by: 'admin', userId: 'owner', at }).thenThrows(t, 'IKW-ACC-002');
  given.when({ type: 'remove_member', by: 'owner', userId: 'owner', at }).thenThrows(t, 'IKW-RES-002');
  given.when({ type: 'change_role', by: 'owner', userId: 'ghost', role: 'viewer', at }).thenThrows(t, { code: 'IKW-RES-001', param: 'userId' });
  const removed = given.when({ type: 'remove_member', by: 'owner', userId: 'dev', at }).thenMatch(t, [{ type: 'organization.member_removed', data: { userId: 'dev' } }]);
  organizations.given(removed).when({ type: 'change_role', by: 'dev', userId: 'admin', role: 'viewer', at }).thenThrows(t, 'IKW-ACC-002', 'a removed member manages nothing');
  const twoOwners = given.history({ type: 'change_role', by: 'owner', userId: 'admin', role: 'owner', at });
  organizations
    .given(twoOwners)
    .when({ type: 'remove_member', by: 'admin', userId: 'owner', at })
    .thenMatch(t, [{ type: 'organization.member_removed' }], 'an owner removes another while one stays');
});

t.test('sessions in an organization the user left end; those elsewhere go on', async (t) => {
  const sessions = users.history(create, start('s1', 'r1'), start('s2', 'r2'), { type: 'switch_session', sessionId: 's2', context: { organizationId: 'org-2', merchantId: 'acct_2' }, at });
  users
    .given(sessions)
    .when({ type: 'end_sessions_in', organizationId: 'org-1', at })
    .then(t, [{ type: 'user.session_revoked', data: { sessionId: 's1', reason: 'removed_from_organization', at: at.toISOString() } }]);
});

t.test('the factor rule: a session of a user with a second factor must have proved it', async (t) => {
  const enrolment: UserCommand = { type: 'start_totp', enrolment: { secretId: 'sec1', sealedSecret: 'v1:x', at: at.toISOString() }, at };
  const activate = (sessionId: string): UserCommand => ({ type: 'activate_totp', secretId: 'sec1', step: 1, recoveryCodeHashes: ['h'], sessionId, at });
  const withTotp: SessionProof = { method: 'password', secondFactor: 'totp' };
  const base = users.history(create, start('s1', 'r1'), start('s2', 'r2'), start('s3', 'r3', withTotp), enrolment);

  // s1 adds the app: it proved it by doing so; s2 never proved a second factor and ends; s3 had.
  users
    .given(base)
    .when(activate('s1'))
    .thenMatch(t, [{ type: 'user.totp_activated' }, { type: 'user.session_proven', data: { sessionId: 's1', secondFactor: 'totp' } }, { type: 'user.session_revoked', data: { sessionId: 's2', reason: 'second_factor_added' } }]);
  const after = users.given(base).history(activate('s1'));
  const state = after.reduce(userDecider.evolve, userDecider.initialState);
  t.ok(satisfiesFactorRule(state, state.sessions.get('s1')!.proof), 'the session that added the factor goes on');
  t.ok(satisfiesFactorRule(state, { method: 'passkey', secondFactor: null }), 'a passkey sign-in (user verified) is both factors');
  t.notOk(satisfiesFactorRule(state, { method: 'magic_link', secondFactor: null }), 'a magic link alone is one factor');
  t.notOk(satisfiesFactorRule(state, null), 'a session from before proofs were kept is unproven');

  // A session started without the factor (one kept from before this rule, say) neither refreshes nor moves.
  const stale = users.given(after).history(start('s4', 'r4', { method: 'magic_link', secondFactor: null }));
  users
    .given(stale)
    .when(refresh('r4', 'r5'))
    .thenMatch(t, [{ type: 'user.session_revoked', data: { sessionId: 's4', reason: 'second_factor_added' } }]);
  users
    .given(stale)
    .when({ type: 'switch_session', sessionId: 's4', context: { organizationId: 'org-2', merchantId: 'acct_2' }, at })
    .thenThrows(t, 'IKW-AUT-007');
  users
    .given(stale)
    .when({ type: 'switch_session', sessionId: 's1', context: { organizationId: 'org-2', merchantId: 'acct_2' }, at })
    .thenMatch(t, [{ type: 'user.session_switched' }]);
  users
    .given(stale)
    .when(refresh('r3', 'r6'))
    .thenMatch(t, [{ type: 'user.session_refreshed', data: { sessionId: 's3' } }]);
});
