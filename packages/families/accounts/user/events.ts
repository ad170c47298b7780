import type { DomainEvent } from '#packages/core/decider.js';

/** A dashboard user: signs in with e-mail and password and acts for the merchants of their organizations. */
export interface UserCreated {
  userId: string;
  email: string;
  name: string;
  /** E.164, or null. */
  phone: string | null;
  /** argon2id (PHC string); the password itself is never stored. */
  passwordHash: string;
  createdAt: string;
}

/** Where a session acts: the organization and one of its merchants. */
export interface SessionContext {
  organizationId: string;
  merchantId: string;
}

export type SessionEndReason =
  | 'refresh_token_reused'
  | 'signed_out'
  | 'revoked'
  | 'other_sessions_revoked'
  | 'password_changed'
  | 'password_reset'
  | 'removed_from_organization'
  /** A second factor was added: sessions that never proved it end (docs/accounts.md, "The factor rule"). */
  | 'second_factor_added';

/** How a person proved who they are before a session started: the first step of every sign-in. */
export type SignInMethod = 'password' | 'magic_link' | 'invitation' | 'google' | 'passkey' | 'signup';

/** The second factor a sign-in answered (an e-mailed code never counts: it proves the same mailbox a link does). */
export type SecondFactorKind = 'totp' | 'recovery_code' | 'passkey';

/** What a session's sign-in proved; the factor rule (`factor-rule.ts`) reads it. */
export interface SessionProof {
  method: SignInMethod;
  secondFactor: SecondFactorKind | null;
}

/** What `PATCH personal-info` changes; absent fields stay as they are. */
export interface ProfileChanges {
  name?: string;
  secondaryEmail?: string | null;
  /** BCP 47 tag, e.g. `fr` or `fr-SN`. */
  language?: string | null;
}

/** The dashboard's onboarding flags (`PATCH onboarding`); absent fields stay as they are. */
export interface OnboardingChanges {
  dismissed?: boolean;
  completed?: boolean;
  step?: string | null;
}

export interface SessionStarted extends SessionContext {
  sessionId: string;
  refreshHash: string;
  expiresAt: string;
  /** The device, for the sessions list: user agent and address at sign-in. */
  userAgent: string | null;
  ip: string | null;
  /** Absent on sessions started before proofs were recorded: they count as unproven. */
  proof?: SessionProof;
  at: string;
}

/** Single-use links sent by e-mail: sign in without a password (15 min), or set a new one (30 min). */
export type UserTokenKind = 'magic_link' | 'password_reset' | 'email_change';

export const USER_TOKEN_TTL_MS: Readonly<Record<UserTokenKind, number>> = { magic_link: 15 * 60_000, password_reset: 30 * 60_000, email_change: 60 * 60_000 };

export interface UserTokenIssued {
  tokenId: string;
  kind: UserTokenKind;
  /** SHA-256 of the token (32 random bytes: no key needed); the token itself is only in the message. */
  tokenHash: string;
  /** The message that carried it. */
  sentTo: string;
  /** `email_change`: the address that becomes the user's when the link is used (it was sent there). */
  newEmail?: string;
  expiresAt: string;
  at: string;
}

/** An authenticator app's secret, sealed with the secrets key (never in clear in the log). */
export interface TotpEnrolment {
  secretId: string;
  sealedSecret: string;
  at: string;
}

/** A passkey (WebAuthn credential) of the user: its public key and signature counter. */
export interface Passkey {
  /** base64url, as the authenticator names it. */
  credentialId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  nickname: string;
  backedUp: boolean;
  createdAt: string;
  lastUsedAt: string | null;
}

/** A Google account linked to the user (docs/accounts.md, "Sign-in with Google"). */
export interface GoogleLink {
  issuer: string;
  /** Google's stable id of the account (`sub`); the e-mail address can change, this cannot. */
  subject: string;
  /** The address Google vouched for when it was linked (shown to the user; not used to sign in). */
  email: string;
}

export type UserEvent =
  | DomainEvent<'user.created', UserCreated>
  | DomainEvent<'user.session_started', SessionStarted>
  | DomainEvent<'user.session_refreshed', { sessionId: string; refreshHash: string; expiresAt: string; at: string }>
  | DomainEvent<'user.session_switched', SessionContext & { sessionId: string; at: string }>
  /** The session that added a second factor proved it by doing so. */
  | DomainEvent<'user.session_proven', { sessionId: string; secondFactor: SecondFactorKind; at: string }>
  | DomainEvent<'user.session_revoked', { sessionId: string; reason: SessionEndReason; at: string }>
  | DomainEvent<'user.default_organization_set', { organizationId: string; at: string }>
  | DomainEvent<'user.password_changed', { passwordHash: string; at: string }>
  | DomainEvent<'user.profile_updated', ProfileChanges & { at: string }>
  | DomainEvent<'user.onboarding_updated', OnboardingChanges & { at: string }>
  /** The user proved they receive messages at this address or number (a code or link sent there). */
  | DomainEvent<'user.contact_verified', { channel: ContactChannel; address: string; at: string }>
  | DomainEvent<'user.token_issued', UserTokenIssued>
  | DomainEvent<'user.token_used', { tokenId: string; at: string }>
  | DomainEvent<'user.token_canceled', { tokenId: string; at: string }>
  | DomainEvent<'user.email_changed', { email: string; previous: string; at: string }>
  | DomainEvent<'user.phone_changed', { phone: string | null; at: string }>
  | DomainEvent<'user.totp_enrolment_started', TotpEnrolment>
  /** `recoveryCodeHashes`: HMACs of the one-time recovery codes shown once at activation. */
  | DomainEvent<'user.totp_activated', { secretId: string; recoveryCodeHashes: string[]; step: number; at: string }>
  /** A TOTP code's time step was used: no code of that step or before is accepted again. */
  | DomainEvent<'user.totp_step_used', { step: number; at: string }>
  | DomainEvent<'user.recovery_code_used', { codeHash: string; at: string }>
  | DomainEvent<'user.recovery_codes_replaced', { recoveryCodeHashes: string[]; at: string }>
  | DomainEvent<'user.totp_disabled', { at: string }>
  /** A passkey registration's WebAuthn challenge (not secret: it is sent to the browser), 5 minutes. */
  | DomainEvent<'user.passkey_registration_started', { challenge: string; expiresAt: string; at: string }>
  | DomainEvent<'user.passkey_added', { passkey: Passkey; challenge: string; at: string }>
  | DomainEvent<'user.passkey_used', { credentialId: string; counter: number; at: string }>
  | DomainEvent<'user.passkey_renamed', { credentialId: string; nickname: string; at: string }>
  | DomainEvent<'user.passkey_removed', { credentialId: string; at: string }>
  /** `via`: `connect` (the signed-in user, behind a challenge) or `email` (a sign-in with Google whose verified address is the user's). */
  | DomainEvent<'user.google_linked', GoogleLink & { via: 'connect' | 'email'; at: string }>
  | DomainEvent<'user.google_unlinked', GoogleLink & { at: string }>;

export type ContactChannel = 'email' | 'phone';

export const userStream = (userId: string) => `user-${userId}`;
