import type { DomainEvent } from '#packages/core/decider.js';
import type { OperatorRole } from '#packages/core/owner.js';

export type OperatorStatus = 'invited' | 'active' | 'deactivated';

/**
 * The team (one stream, `operator_team`): who is an operator, with which role and status. One
 * stream so that its rules hold under races: one operator per address, never no active admin.
 */
export const OPERATOR_TEAM_STREAM = 'operator_team';

export interface OperatorInvited {
  operatorId: string;
  email: string;
  name: string;
  role: OperatorRole;
  at: string;
}

export type TeamEvent =
  | DomainEvent<'operator.invited', OperatorInvited>
  | DomainEvent<'operator.activated', { operatorId: string; at: string }>
  | DomainEvent<'operator.role_changed', { operatorId: string; role: OperatorRole; previousRole: OperatorRole; at: string }>
  | DomainEvent<'operator.deactivated', { operatorId: string; at: string }>;

/** An operator's credentials and sessions (`operator-<id>`): password, authenticator app, sign-ins under way, sessions. */
export const operatorStream = (operatorId: string) => `operator-${operatorId}`;

export type CredentialEvent =
  /** A link to set the password (again, for an operator still invited): the last one issued is the one that works. */
  | DomainEvent<'operator.invitation_issued', { operatorId: string; tokenHash: string; expiresAt: string; at: string }>
  | DomainEvent<'operator.password_set', { passwordHash: string; at: string }>
  /**
   * A password proved: a sign-in waits for the authenticator code; `enrolment`, a new app's sealed
   * secret for one who has none yet; `webauthnChallenge`, what one of their passkeys may sign instead
   * of the code (absent from sign-ins before passkeys, or of operators without one).
   */
  | DomainEvent<'operator.sign_in_started', { challengeHash: string; enrolment: string | null; webauthnChallenge?: string | null; expiresAt: string; at: string }>
  | DomainEvent<'operator.sign_in_failed', { challengeHash: string; at: string }>
  | DomainEvent<'operator.totp_enrolled', { sealedSecret: string; at: string }>
  /** A passkey's registration begun by a signed-in operator who gave their app's code: its WebAuthn challenge, 5 minutes. */
  | DomainEvent<'operator.passkey_registration_started', { challenge: string; expiresAt: string; at: string }>
  | DomainEvent<'operator.passkey_added', { passkey: OperatorPasskey; challenge: string; at: string }>
  | DomainEvent<'operator.passkey_removed', { credentialId: string; at: string }>
  /** A passkey answered a sign-in: its signature counter, which must go up each time. */
  | DomainEvent<'operator.passkey_used', { credentialId: string; counter: number; at: string }>
  | DomainEvent<'operator.session_started', { sessionId: string; challengeHash: string; step: number; expiresAt: string; at: string }>
  | DomainEvent<'operator.session_ended', { sessionId: string; reason: SessionEndReason; at: string }>;

/** A WebAuthn credential of an operator: the second factor of a sign-in in place of the app's code. */
export interface OperatorPasskey {
  credentialId: string;
  /** The credential's public key (COSE), base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  nickname: string;
  createdAt: string;
}

export type SessionEndReason = 'signed_out' | 'deactivated';

/** Days an invitation link works. */
export const INVITATION_TTL_MS = 3 * 86_400_000;
/** How long a sign-in waits for its code: time to scan a new app's QR code too. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
/** Wrong codes a sign-in takes before it is dead. */
export const SIGN_IN_TRIES = 5;
/** How long a passkey's registration waits for the browser's answer. */
export const PASSKEY_CEREMONY_TTL_MS = 5 * 60_000;
/** A session's whole life: a working day; then sign in again (no refresh: operators' power is the platform's). */
export const SESSION_TTL_MS = 12 * 3_600_000;
