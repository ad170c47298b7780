import { declareErrorCodes } from '#packages/core/errors.js';

/** The automations family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `ATM`: automations (docs/automations.md). */
export const automationErrors = declareErrorCodes({
  'IKW-ATM-001': { status: 400, retryable: false, message: 'The automation definition is invalid' },
  'IKW-ATM-002': { status: 400, retryable: false, message: 'The cron expression is invalid' },
  'IKW-ATM-003': { status: 400, retryable: false, message: 'A step names a template that does not exist or is of another kind' },
});

type AutomationErrors = typeof automationErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends AutomationErrors {}
}
