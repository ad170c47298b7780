import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string: how API keys are stored and looked up (never the key itself). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** The stored form of an API key secret. */
export const hashApiKey = sha256Hex;
