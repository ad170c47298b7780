import type { DomainEvent } from '#packages/core/decider.js';
import { sha256Hex } from '#packages/core/hashing.js';

/** A Google account (issuer × `sub`) is linked to at most one user: its own stream says to whom. */
export type GoogleIdentityEvent =
  | DomainEvent<'google_identity.linked', { issuer: string; subject: string; userId: string; at: string }>
  | DomainEvent<'google_identity.unlinked', { issuer: string; subject: string; userId: string; at: string }>;

/** Named by a hash, like addresses: the subject is a personal identifier. */
export const googleIdentityStream = (issuer: string, subject: string) => `google_identity-${sha256Hex(`google|${issuer}|${subject}`).slice(0, 32)}`;
