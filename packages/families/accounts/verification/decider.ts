import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import { isSignUp, MAX_ATTEMPTS, VERIFIED_TTL_MS, type VerificationEvent, type VerificationPurpose, type VerificationStarted } from './events.js';

export interface VerificationState {
  challenge: VerificationStarted | null;
  attempts: number;
  verifiedAt: string | null;
  consumed: boolean;
}

export type VerificationCommand =
  | { type: 'start'; challenge: VerificationStarted }
  /** `codeMatches` is computed by the service (it holds the key); the decision is the same on a retry. */
  | { type: 'verify'; codeMatches: boolean; at: Date }
  /**
   * The operation a verified challenge was for uses it once: sign-up for its address (`address`),
   * a user's operation for that user (a challenge of another user is not theirs to use).
   */
  | { type: 'consume'; purpose: VerificationPurpose; address: string | null; userId: string; at: Date };

const spent = () => new Refusal('IKW-ACC-006', 'This code has expired, was already used or had too many wrong tries; ask for a new one', 'challengeId');

function decideVerify(state: VerificationState, c: Extract<VerificationCommand, { type: 'verify' }>): VerificationEvent[] {
  const challenge = state.challenge!;
  const at = c.at.toISOString();
  if (state.verifiedAt !== null && !state.consumed) {
    if (c.codeMatches) return [];
    throw new Refusal('IKW-ACC-005', 'The code is wrong', 'code');
  }
  if (state.consumed || state.attempts >= MAX_ATTEMPTS || c.at.getTime() >= Date.parse(challenge.expiresAt)) throw spent();
  if (!c.codeMatches) return [{ type: 'verification.failed', data: { attempts: state.attempts + 1, at } }];
  return [{ type: 'verification.succeeded', data: { at } }];
}

/** The field naming a challenge of this purpose: a sign-up has one per address, a phone change its request. */
function challengeField(purpose: VerificationPurpose): string {
  if (purpose === 'signup_email') return 'emailChallengeId';
  if (purpose === 'signup_phone') return 'phoneChallengeId';
  return purpose === 'phone_change' ? 'requestId' : 'challengeId';
}

function decideConsume(state: VerificationState, c: Extract<VerificationCommand, { type: 'consume' }>): VerificationEvent[] {
  const challenge = state.challenge!;
  const field = challengeField(c.purpose);
  // Another user's challenge is not this user's to know of.
  if (challenge.userId !== null && challenge.userId !== c.userId) throw new Refusal('IKW-RES-001', 'No such challenge', field);
  if (state.consumed) throw new Refusal('IKW-ACC-006', 'This challenge was already used', field);
  if (challenge.purpose !== c.purpose) throw new Refusal('IKW-ACC-007', `This challenge is for ${challenge.purpose}, not ${c.purpose}`, field);
  if (state.verifiedAt === null || (c.address !== null && challenge.address !== c.address)) throw new Refusal('IKW-ACC-007', `This challenge was not verified${c.address !== null ? ` for ${c.address}` : ''}`, field);
  const until = isSignUp(challenge.purpose) ? Date.parse(state.verifiedAt) + VERIFIED_TTL_MS : Date.parse(challenge.expiresAt);
  if (c.at.getTime() >= until) throw new Refusal('IKW-ACC-006', 'This challenge has expired; ask for a new one', field);
  return [{ type: 'verification.consumed', data: { userId: c.userId, at: c.at.toISOString() } }];
}

/** A code sent to an address: verified by the right code in time, within five tries; used once. */
export const verificationDecider: Decider<VerificationCommand, VerificationState, VerificationEvent> = {
  initialState: { challenge: null, attempts: 0, verifiedAt: null, consumed: false },

  evolve(state, event) {
    switch (event.type) {
      case 'verification.started':
        return { ...state, challenge: event.data };
      case 'verification.failed':
        return { ...state, attempts: event.data.attempts };
      case 'verification.succeeded':
        return { ...state, verifiedAt: event.data.at };
      case 'verification.consumed':
        return { ...state, consumed: true };
    }
  },

  decide(command, state) {
    if (command.type === 'start') return state.challenge ? [] : [{ type: 'verification.started', data: command.challenge }];
    if (!state.challenge) throw new Refusal('IKW-RES-001', 'No such challenge', command.type === 'verify' ? 'challengeId' : challengeField(command.purpose));
    switch (command.type) {
      case 'verify':
        return decideVerify(state, command);
      case 'consume':
        return decideConsume(state, command);
      default:
        return unreachable(command);
    }
  },
};
