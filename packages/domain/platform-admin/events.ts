import type { DomainEvent } from '../../core/decider.js';

/** A platform operator credential (`sk_admin_…`): stored as its SHA-256, shown once. */
export interface AdminKeyCreated {
  keyId: string;
  keyHash: string;
  last4: string;
  name: string;
  createdAt: string;
}

export type PlatformAdminEvent = DomainEvent<'admin_key.created', AdminKeyCreated> | DomainEvent<'admin_key.revoked', { keyId: string; revokedAt: string }>;

/** Every operator credential lives in one stream: few, rarely changed, audited together. */
export const PLATFORM_ADMIN_STREAM = 'platform_admin';
