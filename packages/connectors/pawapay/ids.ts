import { createHash } from 'node:crypto';

/**
 * The id pawaPay knows an operation by (`depositId`, `payoutId`, `refundId`): pawaPay asks for a
 * UUIDv4 chosen by the caller, and it is the idempotency key there. Sika derives it from its own
 * id, so nothing new must be stored before the call and the same Sika id always names the same
 * pawaPay operation: the first 16 bytes of SHA-256("sika/pawapay/" + Sika id), with the version
 * nibble set to 4 and the variant bits to 10 (RFC 9562), written 8-4-4-4-12 in lower case.
 * Going back (a callback's UUID → Sika's id) is the metadata's job (operations.ts).
 */
export function pawapayId(sikaId: string): string {
  const bytes = createHash('sha256').update(`sika/pawapay/${sikaId}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
