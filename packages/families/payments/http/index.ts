/** The payments family's edge as other families' routes use it: its route schemas and helpers. */
export type { CamelPaymentMethod } from './schemas.js';
export { confirmationFields } from './schemas.js';
export { paymentIntentSchema } from './schemas.js';
export { paymentMethodSchema } from './schemas.js';
export { toPaymentMethod } from './schemas.js';
export { CONFIRM_PAYMENT_REFUSALS } from './schemas.js';
export { CONFIRM_PAYMENT_EVENTS } from './schemas.js';
