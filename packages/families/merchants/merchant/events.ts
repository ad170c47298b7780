import type { DomainEvent } from '../../../core/decider.js';
import type { Environment } from '../../../core/owner.js';

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
  /** The platform operator opened the merchant's live environment: live payments and payouts move money from now on. */
  | DomainEvent<'merchant.live_activated', { merchantId: string; activatedAt: string }>
  /** The platform operator closed it again: no new live payment or payout; those under way finish. */
  | DomainEvent<'merchant.live_deactivated', { merchantId: string; deactivatedAt: string }>;

/**
 * Whether a merchant's live environment moves money (docs/configuration.md, "Live activation"):
 * `inactive` until the platform operator first activates it, `active`, then `deactivated` when the
 * operator closes it again. Times are ISO 8601, the last of each.
 */
export interface LiveActivation {
  status: 'inactive' | 'active' | 'deactivated';
  activatedAt: string | null;
  deactivatedAt: string | null;
}

export const LIVE_NEVER_ACTIVATED: LiveActivation = { status: 'inactive', activatedAt: null, deactivatedAt: null };

export const merchantStream = (merchantId: string) => `merchant-${merchantId}`;
