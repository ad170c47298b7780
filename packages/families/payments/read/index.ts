import type { ReadSide } from '#packages/read-models/read-side.js';
import { paymentIntentsProjection, paymentIntentHistory } from './payment-intents.js';
import { operationsProjection } from './operations.js';
import { railRefundsProjection } from './rail-refunds.js';
import { paymentRailAttemptsProjection } from './rail-attempts.js';

/** Payments: payment intents and their operations, and the refunds sent back through a rail. */
export const paymentsReadSide: ReadSide = {
  family: 'payments',
  readModels: [paymentIntentsProjection, operationsProjection, railRefundsProjection, paymentRailAttemptsProjection],
  histories: [paymentIntentHistory],
};

// The queries other code reads this family by.
export { findPaymentIntent, hasSucceededPayment, listPaymentIntents, paymentActivity, paymentIntentMerchant } from './payment-intents.js';
export { type OperationRow, findOperation } from './operations.js';
export { paymentRailOutcomes } from './rail-attempts.js';
