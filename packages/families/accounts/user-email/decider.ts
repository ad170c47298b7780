import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import type { UserEmailEvent } from './events.js';
import { accountErrors } from '../errors.js';

export interface UserEmailState {
  userId: string | null;
}

export type UserEmailCommand =
  | { type: 'claim'; email: string; userId: string; at: Date }
  /** The user moved to another address: this one is free for a new account. */
  | { type: 'release'; email: string; userId: string; at: Date };

/** Claims an address for a user; claiming it again for the same user changes nothing. */
export const userEmailDecider: Decider<UserEmailCommand, UserEmailState, UserEmailEvent> = {
  initialState: { userId: null },
  evolve: (_state, event) => ({ userId: event.type === 'user_email.claimed' ? event.data.userId : null }),
  decide(command, state) {
    if (command.type === 'release') {
      return state.userId === command.userId ? [{ type: 'user_email.released', data: { email: command.email, userId: command.userId, at: command.at.toISOString() } }] : [];
    }
    if (state.userId === command.userId) return [];
    if (state.userId !== null) throw new Refusal('IKW-ACC-001', accountErrors['IKW-ACC-001'].message, 'email');
    return [{ type: 'user_email.claimed', data: { email: command.email, userId: command.userId, at: command.at.toISOString() } }];
  },
};
