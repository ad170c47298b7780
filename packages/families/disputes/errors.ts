import { declareErrorCodes } from '#packages/core/errors.js';

/** The disputes family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `DSP`: card disputes (docs/disputes.md). */
export const disputeErrors = declareErrorCodes({
  'IKW-DSP-001': { status: 409, retryable: false, message: "The dispute does not await the merchant's response" },
  'IKW-DSP-002': { status: 409, retryable: false, message: 'The evidence due date of the dispute has passed' },
  'IKW-DSP-003': { status: 409, retryable: false, message: 'The dispute is closed already' },
  'IKW-DSP-004': { status: 400, retryable: false, message: "An evidence file is not one of the merchant's ready assets" },
  'IKW-DSP-005': { status: 502, retryable: true, message: 'The card network did not take the answer; nothing was recorded, retry later' },
});

type DisputeErrors = typeof disputeErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends DisputeErrors {}
}
