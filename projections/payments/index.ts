import type { ReadSide } from '../read-side.js';
import { paymentIntentsProjection, paymentIntentHistory } from '../payment-intents.js';
import { operationsProjection } from '../operations.js';

/** Payments: payment intents and their operations. */
export const paymentsReadSide: ReadSide = {
  family: 'payments',
  readModels: [paymentIntentsProjection, operationsProjection],
  histories: [paymentIntentHistory],
};

// The queries other code reads this family by.
export { findPaymentIntent, hasSucceededPayment, listPaymentIntents, paymentIntentMerchant } from '../payment-intents.js';
export { type OperationRow, findOperation } from '../operations.js';
