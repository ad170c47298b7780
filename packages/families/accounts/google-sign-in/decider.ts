import type { Decider } from '#packages/core/decider.js';
import type { ErrorCode } from '#packages/core/errors.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import type { GoogleSignInEvent, GoogleSignInOutcome, GoogleSignInReturn, GoogleSignInStarted } from './events.js';
import { accountErrors } from '../errors.js';

export interface GoogleSignInState {
  started: GoogleSignInStarted | null;
  returned: (GoogleSignInReturn & ({ userId: string; outcome: GoogleSignInOutcome; email: string } | { code: ErrorCode; message: string })) | null;
  redeemed: boolean;
}

export type GoogleSignInCommand =
  | { type: 'start'; started: GoogleSignInStarted }
  /** The callback, once: with the `state` it carried (hashed), and what it decided. */
  | { type: 'complete'; stateHash: string; result: GoogleSignInReturn & { userId: string; outcome: GoogleSignInOutcome; email: string }; at: Date }
  | { type: 'refuse'; stateHash: string; result: GoogleSignInReturn & { code: ErrorCode; message: string }; at: Date }
  /** The one-time code, once, within its lifetime (a refusal too: the service then answers it). */
  | { type: 'redeem'; exchangeHash: string; exchangeKeyHash: string; at: Date };

const badState = () => new Refusal('IKW-FED-002', accountErrors['IKW-FED-002'].message, 'state');
const badCode = () => new Refusal('IKW-FED-002', accountErrors['IKW-FED-002'].message, 'code');

/**
 * One sign-in with Google: started (state, nonce, PKCE verifier kept here), returned once from
 * Google within 10 minutes (completed or refused), and its outcome fetched once within 2 minutes.
 */
export const googleSignInDecider: Decider<GoogleSignInCommand, GoogleSignInState, GoogleSignInEvent> = {
  initialState: { started: null, returned: null, redeemed: false },

  evolve(state, event) {
    switch (event.type) {
      case 'google_sign_in.started':
        return { ...state, started: event.data };
      case 'google_sign_in.completed':
      case 'google_sign_in.refused':
        return { ...state, returned: event.data };
      case 'google_sign_in.redeemed':
        return { ...state, redeemed: true };
    }
  },

  decide(command, state) {
    if (command.type === 'start') return state.started ? [] : [{ type: 'google_sign_in.started', data: command.started }];
    const started = state.started;
    switch (command.type) {
      case 'complete':
      case 'refuse':
        if (!started || started.stateHash !== command.stateHash || state.returned || command.at.getTime() >= Date.parse(started.expiresAt)) throw badState();
        return command.type === 'complete' ? [{ type: 'google_sign_in.completed', data: command.result }] : [{ type: 'google_sign_in.refused', data: command.result }];
      case 'redeem': {
        const returned = state.returned;
        if (!returned || state.redeemed || returned.exchangeHash !== command.exchangeHash || command.at.getTime() >= Date.parse(returned.exchangeExpiresAt)) throw badCode();
        // Another browser than the one that started the attempt (a link or page planted by someone else).
        if (started?.exchangeKeyHash !== command.exchangeKeyHash) throw new Refusal('IKW-FED-002', 'This sign-in with Google was started in another browser; start again', 'exchangeKey');
        return [{ type: 'google_sign_in.redeemed', data: { at: command.at.toISOString() } }];
      }
      default:
        return unreachable(command);
    }
  },
};
