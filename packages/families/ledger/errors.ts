import { declareErrorCodes } from '#packages/core/errors.js';

/** The ledger family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `BAL`: balances (docs/ledger.md). */
export const ledgerErrors = declareErrorCodes({
  'IKW-BAL-001': { status: 400, retryable: false, message: 'The available balance does not cover the amount plus fees' },
});

type LedgerErrors = typeof ledgerErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends LedgerErrors {}
}
