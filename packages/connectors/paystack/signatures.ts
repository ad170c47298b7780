import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Paystack's webhook signature: `x-paystack-signature` is the hex HMAC-SHA512 of the exact body
 * bytes, keyed with the account's secret key. Checked in constant time, before the body is parsed.
 */
export function signatureOf(body: Buffer, secretKey: string): string {
  return createHmac('sha512', secretKey).update(body).digest('hex');
}

/** Whether `header` is the signature of `body` under `secretKey`. */
export function verifiesWith(body: Buffer, header: string | undefined, secretKey: string): boolean {
  if (typeof header !== 'string' || !/^[0-9a-fA-F]{128}$/.test(header)) return false;
  return timingSafeEqual(Buffer.from(header.toLowerCase(), 'hex'), Buffer.from(signatureOf(body, secretKey), 'hex'));
}
