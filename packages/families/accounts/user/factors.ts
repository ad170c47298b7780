/** What the two ways of answering a second factor share (second-factors.ts, passkeys.ts). */
import type { MfaPurpose, VerificationStarted } from '../verification/events.js';
import type { SecondFactorKind } from './events.js';

/**
 * Counts answers to a user's second factor across all their challenges (docs/accounts.md,
 * "Throttling"): over the limit, 429 with Retry-After before anything is checked; a right answer
 * forgets the count. A challenge's own five tries do not stop someone who asks for new ones.
 */
export interface FactorAttempts {
  count(userId: string): Promise<{ succeeded(): Promise<void> }>;
}

/** A challenge answered rightly: what it was for, and which second factor answered it (null: an e-mailed code or the password). */
export interface AnsweredChallenge {
  challengeId: string;
  userId: string;
  purpose: MfaPurpose;
  secondFactor: SecondFactorKind | null;
  signIn: VerificationStarted['signIn'] | null;
}
