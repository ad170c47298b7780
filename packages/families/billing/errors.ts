import { declareErrorCodes } from '#packages/core/errors.js';

/** The billing family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `BIL`: customers, products, subscriptions, invoices, refunds (docs/billing.md). */
export const billingErrors = declareErrorCodes({
  'IKW-BIL-001': { status: 409, retryable: false, message: 'This status transition is not allowed' },
  'IKW-BIL-002': { status: 409, retryable: false, message: 'The product is used by a subscription and cannot be deleted' },
  'IKW-BIL-003': { status: 400, retryable: false, message: 'The refund amount is above what remains refundable on this payment' },
  'IKW-BIL-004': { status: 409, retryable: false, message: 'Only a succeeded payment can be refunded' },
  'IKW-BIL-005': { status: 409, retryable: false, message: "The customer's wallet is empty" },
  'IKW-BIL-006': { status: 400, retryable: false, message: 'No such customer for this merchant and environment' },
  'IKW-BIL-007': { status: 400, retryable: false, message: 'No such price for this merchant and environment' },
  'IKW-BIL-008': { status: 400, retryable: false, message: 'This price cannot be used here' },
  'IKW-BIL-009': { status: 409, retryable: false, message: 'The invoice is not open for payment' },
  'IKW-BIL-010': { status: 400, retryable: false, message: "The currency does not match the wallet's or the invoice's" },
  'IKW-BIL-011': { status: 409, retryable: false, message: 'This subscription does not take usage records' },
  'IKW-BIL-012': { status: 409, retryable: false, message: 'Another payment of this invoice is in progress' },
  'IKW-BIL-013': { status: 400, retryable: false, message: 'The customer has no e-mail address to send the invoice to' },
});

type BillingErrors = typeof billingErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends BillingErrors {}
}
