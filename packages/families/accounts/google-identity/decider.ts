import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import type { GoogleIdentityEvent } from './events.js';
import { accountErrors } from '../errors.js';

export interface GoogleIdentityState {
  userId: string | null;
}

export type GoogleIdentityCommand =
  | { type: 'link'; issuer: string; subject: string; userId: string; at: Date }
  /** The user disconnected it: it may be connected to a user again. */
  | { type: 'unlink'; issuer: string; subject: string; userId: string; at: Date };

/** Links a Google account to one user; linking it again to the same user changes nothing. */
export const googleIdentityDecider: Decider<GoogleIdentityCommand, GoogleIdentityState, GoogleIdentityEvent> = {
  initialState: { userId: null },
  evolve: (_state, event) => ({ userId: event.type === 'google_identity.linked' ? event.data.userId : null }),
  decide(command, state) {
    const data = { issuer: command.issuer, subject: command.subject, userId: command.userId, at: command.at.toISOString() };
    if (command.type === 'unlink') return state.userId === command.userId ? [{ type: 'google_identity.unlinked', data }] : [];
    if (state.userId === command.userId) return [];
    if (state.userId !== null) throw new Refusal('IKW-FED-007', accountErrors['IKW-FED-007'].message);
    return [{ type: 'google_identity.linked', data }];
  },
};
