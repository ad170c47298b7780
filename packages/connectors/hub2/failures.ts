/**
 * Hub2's failure causes (`failureCause {code, message}` of a Payment or a Transfer) → Sika's
 * `failure_code`. The payer's or recipient's faults keep Sika's payer codes, which never count
 * against the rail; `insufficient_funds` on a transfer is the merchant's Hub2 transfer account
 * (`provider_balance_insufficient`, a rail fault); everything else, and any code not known here
 * (Hub2's list is open), is technical: `operator_unavailable` or `provider_error`, both in
 * RAIL_FAULTS (port.ts), so the rail's health counts them. The raw code stays in the message.
 */

export interface Failure {
  failureCode: string;
  failureMessage: string;
}

/** A Payment (pay-in) or a Transfer (pay-out): the same code may mean another thing on each. */
export type FailureKind = 'payment' | 'transfer';

type Table = Readonly<Record<string, Failure>>;

const PAYMENT: Table = {
  customer_insufficient_funds: { failureCode: 'insufficient_funds', failureMessage: "The payer's wallet balance is too low" },
  customer_account_locked: { failureCode: 'payer_account_locked', failureMessage: "The payer's wallet is locked" },
  authentication_failed: { failureCode: 'payment_not_approved', failureMessage: 'The payer did not authenticate the payment' },
  authentication_timeout: { failureCode: 'payment_not_approved', failureMessage: 'The payer did not approve the payment in time' },
  canceled_by_customer: { failureCode: 'payment_not_approved', failureMessage: 'The payer canceled the payment' },
  payer_quota_exceeded: { failureCode: 'payer_limit_reached', failureMessage: "The payer's wallet has reached a transaction limit" },
  invalid_msisdn: { failureCode: 'payer_not_found', failureMessage: 'The operator has no wallet for this number' },
};

const TRANSFER: Table = {
  insufficient_funds: { failureCode: 'provider_balance_insufficient', failureMessage: "The merchant's Hub2 transfer account is too low" },
  invalid_destination: { failureCode: 'recipient_not_found', failureMessage: 'The operator has no account for this number' },
  invalid_msisdn: { failureCode: 'recipient_not_found', failureMessage: 'The operator has no account for this number' },
  destination_not_allowed: { failureCode: 'recipient_not_allowed', failureMessage: 'The operator does not let this account receive the transfer' },
  blacklisted_msisdn: { failureCode: 'recipient_not_allowed', failureMessage: 'The operator has blocked this number' },
};

/** Technical causes that say the operator could not be reached; the rest of the technical ones are Hub2's. */
const OPERATOR_DOWN = new Set(['service_unavailable', 'timeout']);

/**
 * Sika's failure of a Hub2 `failureCause` (or an error body's `{code, message}`), either field
 * possibly missing on a malformed answer. Hub2's own message is kept when it gives one.
 */
export function failureOf(kind: FailureKind, cause: unknown): Failure {
  const raw = typeof cause === 'object' && cause !== null ? (cause as Record<string, unknown>) : {};
  const code = typeof raw.code === 'string' && raw.code ? raw.code : 'unknown_reason';
  const message = typeof raw.message === 'string' && raw.message.trim() ? raw.message.trim() : undefined;
  const table = kind === 'payment' ? PAYMENT : TRANSFER;
  const known = Object.hasOwn(table, code) ? table[code] : undefined;
  if (known) return { failureCode: known.failureCode, failureMessage: message ?? known.failureMessage };
  if (OPERATOR_DOWN.has(code)) return { failureCode: 'operator_unavailable', failureMessage: `${message ?? 'The operator could not be reached'} (Hub2 ${code})` };
  return { failureCode: 'provider_error', failureMessage: `${message ?? `Hub2 failed the ${kind}`} (Hub2 ${code})` };
}
