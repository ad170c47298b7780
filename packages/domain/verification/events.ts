import type { DomainEvent } from '../../core/decider.js';
import type { MessageChannel } from '../messages.js';

/** What a code proves: that its sender receives at an address, before an account exists. */
export type VerificationPurpose = 'signup_email' | 'signup_phone';

/** A code lives 10 minutes and takes 5 wrong tries; once verified, it can be used to sign up for an hour. */
export const CODE_TTL_MS = 10 * 60_000;
export const MAX_ATTEMPTS = 5;
export const VERIFIED_TTL_MS = 60 * 60_000;

export interface VerificationStarted {
  challengeId: string;
  purpose: VerificationPurpose;
  /** The message that carried the code: its channel and address (never the code). */
  channel: MessageChannel;
  address: string;
  /** HMAC of `challengeId:code` (KeyedHasher): six digits cannot be tried back without the key. */
  codeHash: string;
  expiresAt: string;
  at: string;
}

export type VerificationEvent =
  | DomainEvent<'verification.started', VerificationStarted>
  | DomainEvent<'verification.failed', { attempts: number; at: string }>
  | DomainEvent<'verification.succeeded', { at: string }>
  | DomainEvent<'verification.consumed', { userId: string; at: string }>;

export const verificationStream = (challengeId: string) => `verification-${challengeId}`;
