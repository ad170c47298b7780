import type { DomainEvent } from '../../core/decider.js';

/** A dashboard user: signs in with e-mail and password, acts for one merchant with AppTokens. */
export interface UserCreated {
  userId: string;
  email: string;
  /** scrypt, `scrypt$<salt b64>$<hash b64>`; the password itself is never stored. */
  passwordHash: string;
  merchantId: string;
  scopes: string[];
  createdAt: string;
}

export type UserEvent =
  | DomainEvent<'user.created', UserCreated>
  | DomainEvent<'user.session_started', { sessionId: string; refreshHash: string; expiresAt: string; at: string }>
  | DomainEvent<'user.session_refreshed', { sessionId: string; refreshHash: string; expiresAt: string; at: string }>
  | DomainEvent<'user.session_revoked', { sessionId: string; reason: 'refresh_token_reused'; at: string }>;

/** One stream per e-mail address, so an address belongs to one user (the id is derived from it). */
export const userStream = (userId: string) => `user-${userId}`;
