import { declareErrorCodes } from '#packages/core/errors.js';

/** The checkout family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `CHK`: checkout sessions and payment links (docs/checkout.md). */
export const checkoutErrors = declareErrorCodes({
  'IKW-CHK-001': { status: 409, retryable: false, message: 'The checkout session is not open for payment: it is complete, canceled or expired' },
  'IKW-CHK-002': { status: 410, retryable: false, message: 'The payment link no longer takes payments: it was deactivated or has expired' },
  'IKW-CHK-003': { status: 409, retryable: false, message: 'This single-use payment link has been paid, or is being paid, through another checkout session' },
  'IKW-CHK-004': { status: 400, retryable: false, message: 'This payment method type is not one the checkout session accepts' },
  'IKW-CHK-005': { status: 403, retryable: false, message: 'The hosted checkout form was sent from another site' },
});

type CheckoutErrors = typeof checkoutErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends CheckoutErrors {}
}
