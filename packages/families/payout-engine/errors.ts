import { declareErrorCodes } from '#packages/core/errors.js';

/** The payout-engine family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `PEN`: payout batches and recipients (docs/payout-engine.md). */
export const payoutEngineErrors = declareErrorCodes({
  'IKW-PEN-001': { status: 400, retryable: false, message: 'One or more payout instructions are invalid; errors lists each by index' },
  'IKW-PEN-002': { status: 400, retryable: false, message: 'No such recipient for this merchant and environment' },
  'IKW-PEN-003': { status: 400, retryable: false, message: 'This recipient has been archived' },
  'IKW-PEN-004': { status: 400, retryable: false, message: 'The CSV body is malformed' },
  'IKW-PEN-005': { status: 409, retryable: false, message: 'The payout batch is not in a state that allows this operation' },
});

type PayoutEngineErrors = typeof payoutEngineErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends PayoutEngineErrors {}
}
