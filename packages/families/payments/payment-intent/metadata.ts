import { Refusal } from '#packages/core/refusal.js';

/** Keys and key prefixes that belong to the platform: stored, never returned (interface, metadata rule 3). */
export const RESERVED_METADATA_KEYS: readonly string[] = ['Description', 'FailureReason', 'Environment'];
export const RESERVED_METADATA_PREFIXES: readonly string[] = ['country_context.', 'internal.', 'technical.'];

export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

export function isReservedKey(key: string): boolean {
  return RESERVED_METADATA_KEYS.includes(key) || RESERVED_METADATA_PREFIXES.some((p) => key.startsWith(p));
}

/**
 * Merchant metadata as given in a request: only string values are kept (a non-string value is
 * not returned on the object, interface rule 2) and reserved keys are ignored, since the platform
 * owns them. Length limits are those of a first-rate API: 50 keys, 40-char keys, 500-char values.
 */
export function merchantMetadata(input: Record<string, unknown> | undefined, field = 'metadata'): Record<string, string> {
  const out: Record<string, string> = {};
  if (!input) return out;
  for (const [key, value] of Object.entries(input)) {
    if (typeof value !== 'string' || isReservedKey(key)) continue;
    if (key.length === 0 || key.length > METADATA_LIMITS.keyLength) {
      throw new Refusal('IKW-VAL-001', `Metadata keys must be 1 to ${METADATA_LIMITS.keyLength} characters`, `${field}.${key}`);
    }
    if (value.length > METADATA_LIMITS.valueLength) {
      throw new Refusal('IKW-VAL-001', `Metadata values must be at most ${METADATA_LIMITS.valueLength} characters`, `${field}.${key}`);
    }
    out[key] = value;
  }
  return out;
}

/** What responses show: the stored metadata without the platform's keys. */
export function publicMetadata(stored: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(stored)) if (!isReservedKey(key)) out[key] = value;
  return out;
}

export function assertMetadataSize(metadata: Record<string, string>, field = 'metadata'): void {
  const merchantKeys = Object.keys(metadata).filter((k) => !isReservedKey(k));
  if (merchantKeys.length > METADATA_LIMITS.keys) {
    throw new Refusal('IKW-VAL-001', `Metadata can have at most ${METADATA_LIMITS.keys} keys`, field);
  }
}
