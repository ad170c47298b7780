import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A Standard Webhooks signing secret: `whsec_` + base64 of 33 random bytes (the standard allows 24
 * to 64). A multiple of 3 has no `=` padding, so every character, the last four included, is key.
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(33).toString('base64')}`;
}

/**
 * Encrypts secrets at rest (webhook signing secrets, stored idempotent answers) with AES-256-GCM.
 * Ciphertext format: base64 of iv (12 bytes) || tag (16 bytes) || ciphertext, prefixed `v1:` so the
 * format can change later. `context`, when given, is authenticated but not stored (GCM additional
 * data): a sealed value opens only with the context it was sealed for, so it cannot be moved to
 * another row.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('The secrets key must be 32 bytes');
  }

  seal(plaintext: string, context?: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, context?: string): string {
    if (!sealed.startsWith('v1:')) throw new Error('Unknown secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * The key from SECRETS_KEY, or one generated once under the data directory (embedded default),
 * readable only by its owner.
 */
export function loadSecretsKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  const file = path.join(dataDir, 'secrets.key');
  if (fs.existsSync(file)) return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
