import type { DomainEvent } from '#packages/core/decider.js';
import type { MessageChannel } from '#packages/messaging/messages.js';
import type { SignInMethod } from '../user/events.js';

/**
 * What a second-factor challenge allows, once verified: the operation it was asked for (each
 * refuses a challenge of another purpose), or `login` (the tokens of a sign-in with a second factor).
 */
export const MFA_PURPOSES = [
  'login',
  'change-password-mfa',
  'change-email',
  'change-phone',
  'email-change/request',
  'phone-change/request',
  'personal-info/sensitive',
  'mfa/totp/disable',
  'mfa/recovery-codes',
  'google/connect',
  'google/disconnect',
  'passkeys/delete',
  'mfa/totp/setup',
  'passkeys/register',
  'payout-settings/delay',
  'payouts/new-destination',
  'api-keys/create',
  'api-keys/roll',
  'api-keys/revoke',
] as const;
export type MfaPurpose = (typeof MFA_PURPOSES)[number];

/**
 * Adding a second factor: behind a challenge answered by a factor the user already has, or, for a
 * user with none yet, by their password (a stolen access token alone must not add one).
 */
export const ENROLMENT_PURPOSES: readonly MfaPurpose[] = ['mfa/totp/setup', 'passkeys/register'];

/**
 * What a code proves: before an account exists, that its sender receives at an address
 * (`signup_*`); for a user, that they hold their second factor (an MFA purpose) or receive at a new
 * phone number (`phone_change`).
 */
export type VerificationPurpose = 'signup_email' | 'signup_phone' | 'phone_change' | ContactPurpose | MfaPurpose;

/** A signed-in user proving they receive at their current address or number (`verify-email`, `verify-phone`). */
export type ContactPurpose = 'verify_email' | 'verify_phone';

/** Challenges answered at their own route, not by `mfa/verify`. */
export const answeredElsewhere = (purpose: VerificationPurpose) => isSignUp(purpose) || purpose === 'phone_change' || purpose === 'verify_email' || purpose === 'verify_phone';

/** Sign-up codes live 10 minutes; second-factor challenges 5. Each takes 5 wrong tries. */
export const CODE_TTL_MS = 10 * 60_000;
export const MFA_CHALLENGE_TTL_MS = 5 * 60_000;
export const MAX_ATTEMPTS = 5;
/** A verified sign-up code can be used to register for an hour; any other, until it expires. */
export const VERIFIED_TTL_MS = 60 * 60_000;

export function isSignUp(purpose: VerificationPurpose): boolean {
  return purpose === 'signup_email' || purpose === 'signup_phone';
}

export interface VerificationStarted {
  challengeId: string;
  purpose: VerificationPurpose;
  /** The user it is for; null before sign-up. */
  userId: string | null;
  /** How the code reaches its holder: a message (its channel and address, never the code), the user's authenticator app or passkey, or their password. */
  channel: MessageChannel | 'totp' | 'passkey' | 'password';
  address: string;
  /** HMAC of `challengeId:code` (KeyedHasher): six digits cannot be tried back without the key. Empty for `totp` and `passkey`. */
  codeHash: string;
  /** `passkey`: the WebAuthn challenge the authenticator must sign (sent to the browser, so not secret). */
  webauthnChallenge?: string;
  /** `login`: how the first step was proved, and the organization the session is to start in (an invitation's). */
  signIn?: { method: SignInMethod; organizationId: string | null };
  expiresAt: string;
  at: string;
}

export type VerificationEvent =
  | DomainEvent<'verification.started', VerificationStarted>
  | DomainEvent<'verification.failed', { attempts: number; at: string }>
  | DomainEvent<'verification.succeeded', { at: string }>
  | DomainEvent<'verification.consumed', { userId: string; at: string }>;

export const verificationStream = (challengeId: string) => `verification-${challengeId}`;
