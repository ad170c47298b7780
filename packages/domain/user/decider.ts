import { ApiError } from '../../core/errors.js';
import type { Decider } from '../../core/decider.js';
import type { UserCreated, UserEvent } from './events.js';

interface Session {
  refreshHash: string;
  /** Refresh tokens this session already exchanged: presenting one again means it was stolen. */
  used: Set<string>;
  expiresAt: string;
  revoked: boolean;
}

export interface UserState {
  user: UserCreated | null;
  sessions: Map<string, Session>;
}

export type UserCommand =
  | { type: 'create'; user: UserCreated }
  | { type: 'start_session'; sessionId: string; refreshHash: string; expiresAt: Date; at: Date }
  | { type: 'refresh'; presentedHash: string; refreshHash: string; expiresAt: Date; at: Date };

const invalidRefresh = () => new ApiError('IKW-AUT-007', 'The refresh token is not valid', 'refreshToken');

/** Users and their sessions: refresh tokens rotate, and a reused one revokes its whole session. */
export const userDecider: Decider<UserCommand, UserState, UserEvent> = {
  initialState: { user: null, sessions: new Map() },

  evolve(state, event) {
    const sessions = new Map(state.sessions);
    switch (event.type) {
      case 'user.created':
        return { ...state, user: event.data };
      case 'user.session_started':
        sessions.set(event.data.sessionId, { refreshHash: event.data.refreshHash, used: new Set(), expiresAt: event.data.expiresAt, revoked: false });
        return { ...state, sessions };
      case 'user.session_refreshed': {
        const s = sessions.get(event.data.sessionId)!;
        sessions.set(event.data.sessionId, { refreshHash: event.data.refreshHash, used: new Set(s.used).add(s.refreshHash), expiresAt: event.data.expiresAt, revoked: false });
        return { ...state, sessions };
      }
      case 'user.session_revoked': {
        const s = sessions.get(event.data.sessionId)!;
        sessions.set(event.data.sessionId, { ...s, revoked: true });
        return { ...state, sessions };
      }
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.user) throw new ApiError('IKW-RES-003', 'A user with this e-mail already exists');
      return [{ type: 'user.created', data: command.user }];
    }
    const at = command.at.toISOString();
    switch (command.type) {
      case 'start_session':
        if (!state.user) throw new ApiError('IKW-AUT-007', 'Unknown user');
        return [{ type: 'user.session_started', data: { sessionId: command.sessionId, refreshHash: command.refreshHash, expiresAt: command.expiresAt.toISOString(), at } }];
      case 'refresh': {
        for (const [sessionId, s] of state.sessions) {
          if (s.used.has(command.presentedHash)) {
            if (s.revoked) throw invalidRefresh();
            // A token that was already exchanged is back: someone kept a copy. End the session.
            return [{ type: 'user.session_revoked', data: { sessionId, reason: 'refresh_token_reused', at } }];
          }
          if (s.refreshHash !== command.presentedHash) continue;
          if (s.revoked || new Date(s.expiresAt).getTime() <= command.at.getTime()) throw invalidRefresh();
          return [{ type: 'user.session_refreshed', data: { sessionId, refreshHash: command.refreshHash, expiresAt: command.expiresAt.toISOString(), at } }];
        }
        throw invalidRefresh();
      }
    }
  },
};
