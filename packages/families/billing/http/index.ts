/** The billing family's edge as other families' routes use it: its route schemas and helpers. */
export { customerSchema, invoiceSchema, refundSchema, subscriptionSchema } from './schemas.js';
export { billingRead, billingWrite } from './customer-fields.js';
