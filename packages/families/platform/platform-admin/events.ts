import type { DomainEvent } from '#packages/core/decider.js';

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

/** The audit actor of a request made with the platform operator credential `keyId`. */
export const adminActor = (keyId: string) => `admin:${keyId}`;

/** Whether an event's actor is the platform operator credential (adminActor). */
export const isAdminActor = (actor: string | undefined) => actor?.startsWith('admin:') === true;
