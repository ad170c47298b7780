/** The billing family's edge as other families' routes use it: its route schemas and helpers. */
export { customerSchema } from './schemas.js';
export { invoiceSchema } from './schemas.js';
export { refundSchema } from './schemas.js';
export { subscriptionSchema } from './schemas.js';
export { billingRead } from './customer-fields.js';
export { billingWrite } from './customer-fields.js';
