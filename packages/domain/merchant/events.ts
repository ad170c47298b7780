import type { DomainEvent } from '../../core/decider.js';
import type { Environment } from '../../core/owner.js';

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
  | DomainEvent<'api_key.revoked', { merchantId: string; keyId: string; revokedAt: string }>;

export const merchantStream = (merchantId: string) => `merchant-${merchantId}`;
