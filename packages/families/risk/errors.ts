import { declareErrorCodes } from '../../core/errors.js';

/** The risk family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `LIM` 003 onwards: the limits and holds the platform's risk operators set (docs/limits.md). */
export const riskErrors = declareErrorCodes({
  'IKW-LIM-003': { status: 422, retryable: false, message: "The amount is above this account's per-transaction maximum for this currency" },
  'IKW-LIM-004': { status: 422, retryable: true, message: "This payout would take today's payouts above this account's daily payout cap for this currency; retry after the seconds in Retry-After" },
  'IKW-LIM-005': { status: 422, retryable: false, message: "Payouts of this account are frozen by the platform's risk team; payments are still taken" },
  'IKW-LIM-006': { status: 400, retryable: false, message: 'Limits and holds given are not valid: amounts positive and whole in the minor unit of a known currency, a reserve above 0 and at most 100 percent held 1 to 365 days, a freeze with a reason' },
});

type RiskErrors = typeof riskErrors;
declare module '../../core/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ErrorCatalogue extends RiskErrors {}
}
