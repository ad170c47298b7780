import { declareErrorCodes } from '#packages/core/errors.js';

/** The escrow family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `ESC`: escrow contracts (docs/escrow.md). */
export const escrowErrors = declareErrorCodes({
  'IKW-ESC-001': { status: 409, retryable: false, message: 'The escrow contract is not in a state that allows this operation' },
  'IKW-ESC-002': { status: 400, retryable: false, message: 'This payment intent cannot fund this contract' },
  'IKW-ESC-003': { status: 409, retryable: false, message: 'An open dispute freezes this escrow contract' },
  'IKW-ESC-004': { status: 400, retryable: false, message: 'The amount is more than the contract holds for it' },
  'IKW-ESC-005': { status: 409, retryable: false, message: 'The escrow release is not pending' },
  'IKW-ESC-006': { status: 409, retryable: false, message: 'The escrow dispute has been resolved already' },
  'IKW-ESC-007': { status: 400, retryable: false, message: 'No such participant or milestone on this contract' },
  'IKW-ESC-008': { status: 400, retryable: false, message: 'A release goes to one destination' },
  'IKW-ESC-009': { status: 409, retryable: false, message: 'The milestone cannot be released' },
  'IKW-ESC-010': { status: 409, retryable: false, message: 'This payment funded an escrow contract: refund it with POST /api/v1/escrow/contracts/{id}/refund' },
});

type EscrowErrors = typeof escrowErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends EscrowErrors {}
}
