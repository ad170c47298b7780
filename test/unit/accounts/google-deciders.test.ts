/** The deciders behind sign-in with Google, as specifications (docs/accounts.md, "Sign-in with Google"). */
import t from '#tap';
import { googleIdentityDecider, type GoogleIdentityCommand } from '#packages/families/accounts/google-identity/decider.js';
import { googleSignInDecider, type GoogleSignInCommand } from '#packages/families/accounts/google-sign-in/decider.js';
import { userDecider, type UserCommand } from '#packages/families/accounts/user/decider.js';
import { spec } from '../../support/decider-spec.js';

const attempts = spec(googleSignInDecider);
const identities = spec(googleIdentityDecider);
const users = spec(userDecider);
const at = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(at.getTime() + ms);
const MINUTE = 60_000;

const start: GoogleSignInCommand = {
  type: 'start',
  started: { attemptId: 'a1', purpose: 'login', userId: null, stateHash: 's', nonce: 'n', sealedVerifier: 'v1:x', exchangeKeyHash: 'k', returnUrl: 'https://dash.example/', expiresAt: later(10 * MINUTE).toISOString(), at: at.toISOString() },
};
const returned = (when: Date) => ({ exchangeHash: 'x', exchangeExpiresAt: new Date(when.getTime() + 2 * MINUTE).toISOString(), at: when.toISOString() });
const complete = (stateHash = 's', when = at): GoogleSignInCommand => ({ type: 'complete', stateHash, result: { ...returned(when), userId: 'u1', outcome: 'signed_in', email: 'a@b.example' }, at: when });
const refuse = (when = at): GoogleSignInCommand => ({ type: 'refuse', stateHash: 's', result: { ...returned(when), code: 'IKW-FED-006', message: 'no account' }, at: when });
const redeem = (exchangeHash = 'x', when = at, exchangeKeyHash = 'k'): GoogleSignInCommand => ({ type: 'redeem', exchangeHash, exchangeKeyHash, at: when });

t.test('an attempt comes back once, with its state, within 10 minutes', async (t) => {
  attempts
    .given(attempts.history(start))
    .when(complete())
    .thenMatch(t, [{ type: 'google_sign_in.completed', data: { userId: 'u1', outcome: 'signed_in' } }]);
  attempts
    .given(attempts.history(start))
    .when(refuse())
    .thenMatch(t, [{ type: 'google_sign_in.refused', data: { code: 'IKW-FED-006' } }]);
  attempts.given(attempts.history(start)).when(complete('forged')).thenThrows(t, 'IKW-FED-002', 'another state');
  attempts.given(attempts.history(start, complete())).when(complete()).thenThrows(t, 'IKW-FED-002', 'replayed');
  attempts.given(attempts.history(start, refuse())).when(complete()).thenThrows(t, 'IKW-FED-002', 'refused is spent too');
  attempts
    .given(attempts.history(start))
    .when(complete('s', later(10 * MINUTE)))
    .thenThrows(t, 'IKW-FED-002', 'late');
  attempts.given().when(complete()).thenThrows(t, 'IKW-FED-002', 'no such attempt');
  attempts.given(attempts.history(start)).when(start).thenNothing(t);
});

t.test('its one-time code is redeemed once, within 2 minutes, refusals included', async (t) => {
  attempts
    .given(attempts.history(start, complete()))
    .when(redeem())
    .thenMatch(t, [{ type: 'google_sign_in.redeemed' }]);
  attempts
    .given(attempts.history(start, refuse()))
    .when(redeem())
    .thenMatch(t, [{ type: 'google_sign_in.redeemed' }]);
  attempts
    .given(attempts.history(start, complete(), redeem()))
    .when(redeem())
    .thenThrows(t, 'IKW-FED-002');
  attempts.given(attempts.history(start, complete())).when(redeem('y')).thenThrows(t, 'IKW-FED-002', 'another code');
  attempts
    .given(attempts.history(start, complete()))
    .when(redeem('x', later(2 * MINUTE)))
    .thenThrows(t, 'IKW-FED-002', 'late');
  attempts
    .given(attempts.history(start, complete()))
    .when(redeem('x', at, 'another browser'))
    .thenThrows(t, { code: 'IKW-FED-002', param: 'exchangeKey' }, 'only the browser that started it');
  attempts.given(attempts.history(start)).when(redeem()).thenThrows(t, 'IKW-FED-002', 'not back from Google yet');
});

const link = (userId: string): GoogleIdentityCommand => ({ type: 'link', issuer: 'https://accounts.google.com', subject: 'g1', userId, at });
const unlink = (userId: string): GoogleIdentityCommand => ({ type: 'unlink', issuer: 'https://accounts.google.com', subject: 'g1', userId, at });

t.test('a Google account is linked to one user at a time', async (t) => {
  identities
    .given()
    .when(link('u1'))
    .thenMatch(t, [{ type: 'google_identity.linked', data: { userId: 'u1', subject: 'g1' } }]);
  identities
    .given(identities.history(link('u1')))
    .when(link('u1'))
    .thenNothing(t);
  identities
    .given(identities.history(link('u1')))
    .when(link('u2'))
    .thenThrows(t, 'IKW-FED-007');
  identities
    .given(identities.history(link('u1')))
    .when(unlink('u2'))
    .thenNothing(t, "another user's unlink changes nothing");
  identities
    .given(identities.history(link('u1'), unlink('u1')))
    .when(link('u2'))
    .thenMatch(t, [{ type: 'google_identity.linked', data: { userId: 'u2' } }]);
});

const create: UserCommand = { type: 'create', user: { userId: 'u1', email: 'a@b.example', name: 'A', phone: null, passwordHash: 'h0', createdAt: at.toISOString() } };
const linkUser = (subject: string): UserCommand => ({ type: 'link_google', link: { issuer: 'https://accounts.google.com', subject, email: 'a@gmail.example' }, via: 'connect', at });

t.test('a user has one Google account at a time; unlinking needs one', async (t) => {
  users
    .given(users.history(create))
    .when(linkUser('g1'))
    .thenMatch(t, [{ type: 'user.google_linked', data: { subject: 'g1', via: 'connect' } }]);
  users
    .given(users.history(create, linkUser('g1')))
    .when(linkUser('g1'))
    .thenNothing(t);
  users
    .given(users.history(create, linkUser('g1')))
    .when(linkUser('g2'))
    .thenThrows(t, 'IKW-RES-002');
  users
    .given(users.history(create, linkUser('g1')))
    .when({ type: 'unlink_google', at })
    .thenMatch(t, [{ type: 'user.google_unlinked', data: { subject: 'g1' } }]);
  users.given(users.history(create)).when({ type: 'unlink_google', at }).thenThrows(t, 'IKW-RES-002');
  users
    .given(users.history(create, linkUser('g1'), { type: 'unlink_google', at }))
    .when(linkUser('g2'))
    .thenMatch(t, [{ type: 'user.google_linked', data: { subject: 'g2' } }]);
});
