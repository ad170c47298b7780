import { declareErrorCodes } from '#packages/core/errors.js';

/**
 * The operators family's error codes, its manifest's `errors` (docs/errors.md, docs/operator.md).
 * `OPR`: operators' sign-in and team. IKW-OPR-001 and -002 are the kernel's (the HTTP edge answers them).
 */
export const operatorErrors = declareErrorCodes({
  'IKW-OPR-003': { status: 401, retryable: false, message: 'The e-mail address or password is wrong' },
  'IKW-OPR-004': { status: 400, retryable: false, message: 'The code is wrong; check the authenticator app and the phone’s clock' },
  'IKW-OPR-005': { status: 400, retryable: false, message: 'This sign-in has expired, was completed, or had too many wrong codes; sign in again' },
  'IKW-OPR-006': { status: 409, retryable: false, message: 'The team must keep at least one active admin' },
  'IKW-OPR-007': { status: 409, retryable: false, message: 'An active operator holds this e-mail address already' },
  'IKW-OPR-008': { status: 400, retryable: false, message: 'This invitation link has expired or was already used; ask an admin for a new one' },
  'IKW-OPR-009': { status: 409, retryable: false, message: 'This operator is deactivated' },
  'IKW-OPR-010': { status: 400, retryable: false, message: 'The passkey was not accepted: it did not verify, is not one of this operator’s, or its registration expired' },
});

type OperatorErrors = typeof operatorErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends OperatorErrors {}
}
