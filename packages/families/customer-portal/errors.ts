import { declareErrorCodes } from '#packages/core/errors.js';

/** The customer-portal family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `CPT`: the customer portal (docs/customer-portal.md). */
export const customerPortalErrors = declareErrorCodes({
  'IKW-CPT-001': { status: 401, retryable: false, message: 'The code is wrong, has expired or was already used; ask for a new one' },
  'IKW-CPT-002': { status: 401, retryable: false, message: 'Sign in to the customer portal: the portal token is missing, wrong, expired or signed out' },
  'IKW-CPT-003': { status: 403, retryable: false, message: "The merchant's customer portal does not let customers do this" },
});

type CustomerPortalErrors = typeof customerPortalErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends CustomerPortalErrors {}
}
