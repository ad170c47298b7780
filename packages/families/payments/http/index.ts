/** The payments family's edge as other families' routes use it: its route schemas and helpers. */
export type { CamelPaymentMethod } from './schemas.js';
export { confirmationFields, paymentIntentSchema, paymentMethodSchema, toPaymentMethod, CONFIRM_PAYMENT_REFUSALS, CONFIRM_PAYMENT_EVENTS } from './schemas.js';
