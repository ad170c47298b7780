import { declareErrorCodes } from '#packages/core/errors.js';

/** The statements family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `STM`: statements (docs/statements.md). */
export const statementErrors = declareErrorCodes({
  'IKW-STM-001': { status: 404, retryable: false, message: 'The download link has expired (links last a day), was altered, or names no statement: make another' },
});

type StatementErrors = typeof statementErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends StatementErrors {}
}
