import type { Decider } from '../../core/decider.js';
import { ApiError } from '../../core/errors.js';
import { unreachable } from '../aggregate.js';
import { MAX_ATTEMPTS, VERIFIED_TTL_MS, type VerificationEvent, type VerificationPurpose, type VerificationStarted } from './events.js';

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
  /** Sign-up uses a verified challenge once, for its purpose and address. */
  | { type: 'consume'; purpose: VerificationPurpose; address: string; userId: string; at: Date };

const spent = () => new ApiError('IKW-ACC-006', 'This code has expired, was already used or had too many wrong tries; ask for a new one', 'challengeId');

function decideVerify(state: VerificationState, c: Extract<VerificationCommand, { type: 'verify' }>): VerificationEvent[] {
  const challenge = state.challenge!;
  const at = c.at.toISOString();
  if (state.verifiedAt !== null && !state.consumed) {
    if (c.codeMatches) return [];
    throw new ApiError('IKW-ACC-005', 'The code is wrong', 'code');
  }
  if (state.consumed || state.attempts >= MAX_ATTEMPTS || c.at.getTime() >= Date.parse(challenge.expiresAt)) throw spent();
  if (!c.codeMatches) return [{ type: 'verification.failed', data: { attempts: state.attempts + 1, at } }];
  return [{ type: 'verification.succeeded', data: { at } }];
}

function decideConsume(state: VerificationState, c: Extract<VerificationCommand, { type: 'consume' }>): VerificationEvent[] {
  const challenge = state.challenge!;
  const param = challenge.purpose === 'signup_email' ? 'emailChallengeId' : 'phoneChallengeId';
  if (state.consumed) throw new ApiError('IKW-ACC-006', 'This verification was already used', param);
  if (state.verifiedAt === null || challenge.purpose !== c.purpose || challenge.address !== c.address) {
    throw new ApiError('IKW-ACC-007', `This challenge did not verify ${c.address}`, param);
  }
  if (c.at.getTime() >= Date.parse(state.verifiedAt) + VERIFIED_TTL_MS) throw new ApiError('IKW-ACC-006', 'This verification has expired; verify the address again', param);
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
    if (!state.challenge) throw new ApiError('IKW-RES-001', 'No such challenge', command.type === 'verify' ? 'challengeId' : command.purpose === 'signup_email' ? 'emailChallengeId' : 'phoneChallengeId');
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
