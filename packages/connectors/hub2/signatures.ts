import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Hub2's webhook signature: `Hub2-Signature: s1=<hex>[,s0=<hex>]`, each the hex HMAC-SHA256 of
 * the body; `s1` with the current secret, `s0` with the old one during the 24 hours after a
 * change. Sika holds one secret: either value matching it is enough, so a rotation breaks nothing
 * whichever side of it Sika's configuration is on. Hub2's guide signs the body "as a JSON string"
 * (JSON.stringify of the parsed body): the raw bytes are tried first, the re-serialised form only
 * when they fail (key order and spacing could differ).
 */

export const SIGNATURE_HEADER = 'hub2-signature';

/** Hex HMAC-SHA256 of `body` under `secret`. */
export function signatureOf(body: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** The s1 and s0 values of a Hub2-Signature header (other parts ignored); empty when there are none. */
export function signatureValues(header: string): string[] {
  return header
    .split(',')
    .map((part) => /^\s*(s[01])\s*=\s*([0-9a-fA-F]{64})\s*$/.exec(part))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => m[2]!.toLowerCase());
}

/** Whether `header` signs `body` under `secret` (s1 or s0, the raw bytes or else the re-serialised JSON), in constant time. */
export function verifiesWith(body: Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || secret === '') return false;
  const values = signatureValues(header).map((v) => Buffer.from(v, 'hex'));
  if (values.length === 0) return false;
  const matches = (signed: Buffer | string) => {
    const expected = Buffer.from(signatureOf(signed, secret), 'hex');
    // Every value is compared, so the time taken does not say which one matched.
    return values.map((v) => timingSafeEqual(v, expected)).includes(true);
  };
  if (matches(body)) return true;
  const reserialised = reserialise(body);
  return reserialised !== null && reserialised !== body.toString('utf8') && matches(reserialised);
}

function reserialise(body: Buffer): string | null {
  try {
    return JSON.stringify(JSON.parse(body.toString('utf8')));
  } catch {
    return null;
  }
}
