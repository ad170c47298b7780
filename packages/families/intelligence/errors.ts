import { declareErrorCodes } from '#packages/core/errors.js';

/** The intelligence family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `ITL`: intelligence (docs/intelligence.md). */
export const intelligenceErrors = declareErrorCodes({
  'IKW-ITL-001': { status: 400, retryable: false, message: 'The date range is not valid: from must be before to, within the longest range allowed' },
});

type IntelligenceErrors = typeof intelligenceErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends IntelligenceErrors {}
}
