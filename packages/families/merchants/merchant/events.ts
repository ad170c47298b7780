import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

export interface ApiKeyRecord {
  keyId: string;
  environment: Environment;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  keyHash: string;
  /** Last four characters, so people can tell keys apart. */
  last4: string;
  scopes: string[];
  /** What the merchant calls it; keys created before keys had names have none. */
  name?: string;
  /** The key this one replaced (POST …/api-keys/{id}/roll). */
  rolledFrom?: string;
}

export type MerchantEvent =
  | DomainEvent<'merchant.created', { merchantId: string; name: string; email: string | null; createdAt: string }>
  | DomainEvent<'api_key.created', ApiKeyRecord & { merchantId: string; createdAt: string }>
  /** The key was replaced by `successorId` and keeps working until `expiresAt` (the grace period). */
  | DomainEvent<'api_key.rolled', { merchantId: string; keyId: string; successorId: string; expiresAt: string; rolledAt: string }>
  | DomainEvent<'api_key.revoked', { merchantId: string; keyId: string; revokedAt: string }>
  /** The platform opened the merchant's live environment (its application approved, or its suspension lifted): live payments and payouts move money from now on. */
  | DomainEvent<'merchant.live_activated', { merchantId: string; activatedAt: string }>
  /** The platform closed it again: no new live payment or payout; those under way finish. `suspended`: by a suspension of the account. */
  | DomainEvent<'merchant.live_deactivated', { merchantId: string; deactivatedAt: string; suspended?: true }>;

/**
 * Whether a merchant's live environment moves money (docs/configuration.md, "Live activation"):
 * `inactive` until the platform approves its activation application, `active`, then `deactivated`
 * when it is closed again (`suspended`: by a suspension of the account). Times are ISO 8601, the last of each.
 */
export interface LiveActivation {
  status: 'inactive' | 'active' | 'deactivated';
  activatedAt: string | null;
  deactivatedAt: string | null;
  suspended: boolean;
}

export const LIVE_NEVER_ACTIVATED: LiveActivation = { status: 'inactive', activatedAt: null, deactivatedAt: null, suspended: false };

export const merchantStream = (merchantId: string) => `merchant-${merchantId}`;
