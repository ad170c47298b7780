/**
 * The reference Paystack knows a Sika operation by (a transfer's or a transaction's `reference`):
 * caller-chosen, unique, the idempotency key there. Sika derives it from its own id, so it is
 * known before the call with nothing new to store, and the same payout always names the same
 * transfer: `sika-` and the id's UTF-8 bytes in lower-case hex. That fits both of Paystack's rules
 * (transfers: lower case `[a-z0-9_-]`, at least 16 characters; transactions: `[A-Za-z0-9.=-]`),
 * and it goes back: a webhook's reference names Sika's id.
 */
export function paystackReference(sikaId: string): string {
  return `sika-${Buffer.from(sikaId, 'utf8').toString('hex')}`;
}

/** Sika's id of a reference `paystackReference` made; null for anything else. */
export function sikaIdOf(reference: unknown): string | null {
  if (typeof reference !== 'string') return null;
  const hex = /^sika-((?:[0-9a-f]{2}){1,64})$/.exec(reference)?.[1];
  if (!hex) return null;
  const id = Buffer.from(hex, 'hex').toString('utf8');
  return paystackReference(id) === reference ? id : null;
}
