import { declareErrorCodes } from '#packages/core/errors.js';

/** The accounts family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `ACC` accounts and `FED` sign-in with Google (docs/accounts.md); IKW-ACC-003, which the HTTP kernel answers, is the kernel's. */
export const accountErrors = declareErrorCodes({
  'IKW-ACC-001': { status: 409, retryable: false, message: 'An account with this e-mail address already exists' },
  'IKW-ACC-002': { status: 403, retryable: false, message: 'Your role in this organization does not allow this' },
  'IKW-ACC-004': { status: 403, retryable: false, message: 'The current password is wrong' },
  'IKW-ACC-005': { status: 400, retryable: false, message: 'The code is wrong' },
  'IKW-ACC-006': { status: 400, retryable: false, message: 'This code or link has expired, was already used or had too many wrong tries; ask for a new one' },
  'IKW-ACC-007': {
    status: 400,
    retryable: false,
    message: "The challenge given is for another purpose, is not verified yet, or was verified for another address: ask one of this operation's purpose and verify it (sign-up: one for the same e-mail address, and phone when given)",
  },
  'IKW-ACC-008': { status: 409, retryable: false, message: 'This person is already a member of the organization or has a pending invitation' },
  'IKW-ACC-009': { status: 400, retryable: false, message: 'The passkey was not accepted' },
  'IKW-ACC-010': { status: 409, retryable: false, message: 'An organization you own requires a second factor; add another before removing this one' },
  'IKW-ACC-011': { status: 403, retryable: false, message: 'This needs challenge_id: a challenge of its purpose (POST /api/v1/auth/mfa/challenge), verified within the last 5 minutes' },
  'IKW-ACC-012': { status: 409, retryable: false, message: 'You already belong to as many organizations as one user may' },
  'IKW-FED-001': { status: 403, retryable: false, message: 'Sign-in with Google is not configured on this service (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)' },
  'IKW-FED-002': { status: 400, retryable: false, message: 'This sign-in with Google is unknown, was already used or has expired; start again' },
  'IKW-FED-003': { status: 400, retryable: false, message: 'returnUrl must be an http(s) URL on the origin of this service or an allowed origin, without a fragment' },
  'IKW-FED-004': { status: 400, retryable: false, message: "Google's answer could not be verified (refused, wrong code, nonce or ID token, or Google could not be reached); start again" },
  'IKW-FED-005': { status: 403, retryable: false, message: 'Google did not confirm that this e-mail address belongs to this Google account' },
  'IKW-FED-006': { status: 403, retryable: false, message: 'No Sika account is connected to this Google account or uses its e-mail address; sign up first (POST /api/v1/auth/register), then connect Google' },
  'IKW-FED-007': { status: 409, retryable: false, message: 'This Google account is already connected to another Sika user' },
});

type AccountErrors = typeof accountErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends AccountErrors {}
}
