import { declareErrorCodes } from '#packages/core/errors.js';

/** The platform family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `CAP` payment capabilities and `CFG` country activations (docs/platform.md, docs/configuration.md). */
export const platformErrors = declareErrorCodes({
  'IKW-CAP-001': { status: 422, retryable: false, message: 'This payment method is disabled for this account' },
  'IKW-CAP-002': { status: 422, retryable: false, message: 'This payment method is suspended for this account' },
  'IKW-CAP-003': { status: 409, retryable: false, message: 'A payment capability for this country, currency, method and operator already exists' },
  'IKW-CFG-001': { status: 422, retryable: false, message: 'This country and currency are not activated for this direction for this account' },
  'IKW-CFG-002': { status: 422, retryable: false, message: "The amount is outside this account's activated bounds for this country and currency" },
  'IKW-CFG-003': { status: 409, retryable: false, message: 'An activation for this country and currency exists already' },
  'IKW-CFG-004': { status: 400, retryable: false, message: 'The platform operator credential must name the merchant it acts on (merchantId)' },
  'IKW-CFG-005': { status: 403, retryable: false, message: 'The platform operator set this activation: only the operator changes or deletes it' },
});

type PlatformErrors = typeof platformErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends PlatformErrors {}
}
