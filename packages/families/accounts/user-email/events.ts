import type { DomainEvent } from '#packages/core/decider.js';
import { sha256Hex } from '#packages/core/hashing.js';

/** An e-mail address is held by at most one user: its own stream says by whom. */
export type UserEmailEvent = DomainEvent<'user_email.claimed', { email: string; userId: string; at: string }> | DomainEvent<'user_email.released', { email: string; userId: string; at: string }>;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Named by a hash, so the address is not in stream names (which logs and metrics show). */
export const userEmailStream = (email: string) => `user_email-${sha256Hex(`email|${normalizeEmail(email)}`).slice(0, 32)}`;
