import { declareErrorCodes } from '#packages/core/errors.js';

/** The funding family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `FND`: funding campaigns (docs/funding.md). */
export const fundingErrors = declareErrorCodes({
  'IKW-FND-001': { status: 409, retryable: false, message: 'The funding campaign is not in a state that allows this' },
  'IKW-FND-002': { status: 409, retryable: false, message: 'The funding campaign takes no contributions: it is not published, has ended or has passed its deadline' },
  'IKW-FND-003': { status: 409, retryable: false, message: 'An all-or-nothing campaign below its target cannot be closed: it is refunded at its deadline, or cancel it' },
  'IKW-FND-004': { status: 409, retryable: false, message: 'The contribution is not in a state that allows this' },
  'IKW-FND-005': { status: 400, retryable: false, message: 'The released funds not yet paid out do not cover this payout and its fee' },
  'IKW-FND-006': { status: 409, retryable: false, message: 'This payment is a contribution to a funding campaign: refund it with POST /api/v1/funding/contributions/{id}/refund' },
});

type FundingErrors = typeof fundingErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends FundingErrors {}
}
