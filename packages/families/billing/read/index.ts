import type { ReadSide } from '#packages/read-models/read-side.js';
import { customersProjection } from './customers.js';
import { productsProjection } from './products.js';
import { subscriptionsProjection } from './subscriptions.js';
import { invoicesProjection } from './invoices.js';
import { refundsProjection } from './refunds.js';
import { usageRecordsProjection } from './usage-records.js';

/** Merchant billing: customers, products, subscriptions, invoices, refunds and usage records. */
export const billingReadSide: ReadSide = {
  family: 'billing',
  readModels: [customersProjection, productsProjection, subscriptionsProjection, invoicesProjection, refundsProjection, usageRecordsProjection],
};

// The queries other code reads this family by.
export { customerObject, findCustomer, findCustomerIdByEmail, listCustomers } from './customers.js';
export { type PlanRow, findPlan, findPrices, findProduct, listPlans, listProducts } from './products.js';
export { findSubscription, listSubscriptions, listSubscriptionsByCursor, renderSubscription } from './subscriptions.js';
export { findInvoice, findIssuedInvoice, listInvoices, listInvoicesByCursor, listIssuedInvoicesByCursor, renderInvoice } from './invoices.js';
export { listRefunds } from './refunds.js';
export { listUsageRecords } from './usage-records.js';
