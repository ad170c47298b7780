import type { DomainEvent } from '#packages/core/decider.js';
import type { ErrorCode } from '#packages/core/errors.js';

/** A sign-in with Google (`login`, anyone) or the connection of a Google account to a signed-in user (`connect`). */
export type GoogleSignInPurpose = 'login' | 'connect';

/** How long the browser has to come back from Google, and then to exchange the one-time code. */
export const GOOGLE_STATE_TTL_MS = 10 * 60_000;
export const GOOGLE_EXCHANGE_TTL_MS = 2 * 60_000;

export interface GoogleSignInStarted {
  attemptId: string;
  purpose: GoogleSignInPurpose;
  /** `connect`: the user the Google account will be connected to. */
  userId: string | null;
  /** SHA-256 of the `state` sent to Google (32 random bytes and the attempt id): the log cannot forge a callback. */
  stateHash: string;
  /** Sent to Google in the browser's URL and back in the ID token: not a secret. */
  nonce: string;
  /** The PKCE verifier, sealed with the secrets key: only this service can exchange the code. */
  sealedVerifier: string;
  /**
   * SHA-256 of the key `login`/`connect` answered to the browser that started the attempt; the
   * exchange must present it, so an attempt cannot be finished in another browser (login CSRF).
   * Absent on attempts started before it was asked for: those cannot be exchanged.
   */
  exchangeKeyHash?: string;
  returnUrl: string;
  expiresAt: string;
  at: string;
}

/** What the callback decided, fetched once by the one-time code put in the redirect to `returnUrl`. */
export interface GoogleSignInReturn {
  /** SHA-256 of the one-time code (32 random bytes and the attempt id). */
  exchangeHash: string;
  exchangeExpiresAt: string;
  at: string;
}

export type GoogleSignInOutcome = 'signed_in' | 'linked' | 'connected';

export type GoogleSignInEvent =
  | DomainEvent<'google_sign_in.started', GoogleSignInStarted>
  /** The callback verified Google's answer and found (or linked) the user. */
  | DomainEvent<'google_sign_in.completed', GoogleSignInReturn & { userId: string; outcome: GoogleSignInOutcome; email: string }>
  /** The callback came back but was refused: the code and message the exchange answers. */
  | DomainEvent<'google_sign_in.refused', GoogleSignInReturn & { code: ErrorCode; message: string }>
  | DomainEvent<'google_sign_in.redeemed', { at: string }>;

export const googleSignInStream = (attemptId: string) => `google_sign_in-${attemptId}`;
