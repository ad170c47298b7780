/**
 * pawaPay's failure codes → Sika's `failure_code` (docs/connectors.md, "pawaPay"): one table for
 * the rejections of an initiation (HTTP 200, `status: REJECTED`) and the failures of a final
 * `FAILED` payment. Codes Sika already uses keep their names (`insufficient_funds`,
 * `recipient_not_found`, `operator_unavailable`); pawaPay's list is open, so an unknown code
 * becomes `provider_error` and the message keeps the raw code.
 */

export interface Failure {
  failureCode: string;
  failureMessage: string;
}

const TABLE: Readonly<Record<string, Failure>> = {
  // Final failures of a deposit, payout or refund.
  PAYER_NOT_FOUND: { failureCode: 'payer_not_found', failureMessage: 'The operator has no wallet for this number' },
  PAYMENT_NOT_APPROVED: { failureCode: 'payment_not_approved', failureMessage: 'The payer did not approve the payment in time' },
  INSUFFICIENT_BALANCE: { failureCode: 'insufficient_funds', failureMessage: "The payer's wallet balance is too low" },
  PAYER_LIMIT_REACHED: { failureCode: 'payer_limit_reached', failureMessage: "The payer's wallet has reached a transaction limit" },
  RECIPIENT_NOT_FOUND: { failureCode: 'recipient_not_found', failureMessage: 'The operator has no account for this number' },
  RECIPIENT_LIMIT_REACHED: { failureCode: 'recipient_limit_reached', failureMessage: "The recipient's wallet has reached a limit" },
  MANUALLY_CANCELLED: { failureCode: 'canceled', failureMessage: 'The transfer was canceled before the operator took it' },
  // Rejections of an initiation (no money moved, no callback follows).
  PROVIDER_TEMPORARILY_UNAVAILABLE: { failureCode: 'operator_unavailable', failureMessage: 'The operator is not reachable; try again later' },
  INVALID_PHONE_NUMBER: { failureCode: 'invalid_phone_number', failureMessage: 'The operator does not accept this phone number' },
  AMOUNT_OUT_OF_BOUNDS: { failureCode: 'amount_out_of_limits', failureMessage: "The amount is outside the operator's limits" },
  INVALID_AMOUNT: { failureCode: 'invalid_amount', failureMessage: 'The operator does not accept this amount' },
  INVALID_CURRENCY: { failureCode: 'currency_not_supported', failureMessage: 'The operator does not take this currency' },
  INVALID_PROVIDER: { failureCode: 'operator_not_supported', failureMessage: 'pawaPay does not carry this operator for the account' },
  DEPOSITS_NOT_ALLOWED: { failureCode: 'operator_not_supported', failureMessage: 'Collections through this operator are not enabled' },
  PAYOUTS_NOT_ALLOWED: { failureCode: 'operator_not_supported', failureMessage: 'Payouts through this operator are not enabled' },
  REFUNDS_NOT_ALLOWED: { failureCode: 'refund_not_supported', failureMessage: 'Refunds through this operator are not enabled' },
};

/** The generic Sika code of a pawaPay code that has no line in the table. */
export const GENERIC_FAILURE_CODE = 'provider_error';

/**
 * Sika's failure of a pawaPay `failureReason` (`{failureCode, failureMessage}`, either may be
 * missing on a malformed answer). pawaPay's own message is kept when it gives one.
 */
export function failureOf(reason: unknown): Failure {
  const raw = typeof reason === 'object' && reason !== null ? (reason as Record<string, unknown>) : {};
  const code = typeof raw.failureCode === 'string' ? raw.failureCode : 'UNKNOWN_ERROR';
  const message = typeof raw.failureMessage === 'string' && raw.failureMessage.trim() ? raw.failureMessage.trim() : undefined;
  const known = Object.hasOwn(TABLE, code) ? TABLE[code] : undefined;
  if (known) return { failureCode: known.failureCode, failureMessage: message ?? known.failureMessage };
  return { failureCode: GENERIC_FAILURE_CODE, failureMessage: `${message ?? 'The operator failed the transfer'} (pawaPay ${code})` };
}
