import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of a string: how API keys are stored and looked up (never the key itself). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** The stored form of an API key secret. */
export const hashApiKey = sha256Hex;

/**
 * HMAC-SHA256 under a key derived from the secrets key, for short secrets (six-digit codes): their
 * stored form cannot be reversed by trying every code without the key. Comparison is constant-time.
 */
export class KeyedHasher {
  private readonly key: Buffer;

  constructor(secretsKey: Buffer, purpose: string) {
    this.key = createHmac('sha256', secretsKey).update(purpose).digest();
  }

  hash(value: string): string {
    return createHmac('sha256', this.key).update(value).digest('hex');
  }

  matches(value: string, stored: string): boolean {
    const a = Buffer.from(this.hash(value), 'hex');
    const b = Buffer.from(stored, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
