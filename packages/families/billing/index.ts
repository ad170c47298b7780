import { ledger } from '#packages/families/ledger/index.js';
import { Billing } from './service.js';
import { customerPublicEvents } from './customer/public-events.js';
import { invoicePublicEvents } from './invoice/public-events.js';
import { productPublicEvents } from './product/public-events.js';
import { refundPublicEvents } from './refund/public-events.js';
import { subscriptionPublicEvents } from './subscription/public-events.js';
import { invoicePayment, invoicePaymentsConsumer } from './processes/invoice-payment.js';
import { refundReconcile } from './processes/refund-reconcile.js';
import { subscriptionInvoiceDue } from './processes/subscription-invoice-due.js';
import { subscriptionInvoiceIssue } from './processes/subscription-invoice-issue.js';
import { subscriptionRenewal } from './processes/subscription-renewal.js';
import { walletApplication } from './processes/wallet-application.js';
import { defineFamily } from '#packages/families/family.js';
import { platform } from '#packages/families/platform/index.js';
import { billingReadSide } from './read/index.js';
import { payments } from '#packages/families/payments/index.js';
import { checkout } from '#packages/families/checkout/index.js';
import { INVOICE_METADATA_KEY } from './invoice/commands.js';
import { billingErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    billing: Billing;
  }
}

/** Customers, products, subscriptions, invoices, refunds (docs/billing.md). */
export const billing = defineFamily({
  name: 'billing',
  readSide: billingReadSide,
  needs: [payments, ledger, checkout, platform],
  errors: billingErrors,
  publicEvents: [customerPublicEvents, productPublicEvents, subscriptionPublicEvents, invoicePublicEvents, refundPublicEvents],
  processes: [invoicePayment, walletApplication, subscriptionRenewal, subscriptionInvoiceIssue, subscriptionInvoiceDue, refundReconcile],
  build: ({ config, store, ledger, clock, reads, enqueuer, knex, outbox }, { paymentIntents, paymentRecipients, railRefunds, checkoutSessionOpening }) => ({
    billing: new Billing({
      checkout: checkoutSessionOpening,
      knex,
      messenger: outbox,
      reads,
      store,
      ledger,
      clock,
      publicUrl: config.publicUrl,
      paymentIntents,
      recipients: paymentRecipients,
      railRefunds,
      jobs: {
        renew: enqueuer(subscriptionRenewal),
        issueInvoice: enqueuer(subscriptionInvoiceIssue),
        invoiceDue: enqueuer(subscriptionInvoiceDue),
        walletApplication: enqueuer(walletApplication),
        refundReconcile: enqueuer(refundReconcile),
      },
    }),
  }),
  // Billing keeps the customers payments are made by.
  // An invoice's hosted page pays on a checkout session: each attempt is the invoice's to allow and attach.
  registrations: ({ billing }) => ({
    payerCustomers: billing.customers,
    checkoutPayees: [{ metadataKey: INVOICE_METADATA_KEY, beforeConfirm: (who, id, intentId) => billing.invoicePayments.beforeCheckoutConfirm(who, id, intentId) }],
  }),
  consumers: (_, { clock }) => [invoicePaymentsConsumer(clock)],
});

// What other families use of this one (its public face): they import it from here, never from its files.
export type { Billing } from './service.js';

// What other families' routes and read models use of this family.
export type { InvoiceStatus } from './invoice/events.js';
export type { RefundObject } from './refund/events.js';
export { toSubscriptionObject } from './subscription/render.js';
export type { CustomerObject } from './customer/events.js';
export type { InvoiceObject } from './invoice/events.js';
export type { SubscriptionObject } from './subscription/events.js';
export type { RefundEvent } from './refund/events.js';
