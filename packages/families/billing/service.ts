import type { Clock } from '#packages/core/clock.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { Ledger } from '#packages/ledger/decider.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import { Customers } from './customer/commands.js';
import { InvoiceIssuing, type InvoiceCheckout, type InvoiceDeps, type WalletApplicationRef } from './invoice/commands.js';
import { InvoicePayments } from './invoice/payments.js';
import { InvoiceWalletPayments } from './invoice/wallet.js';
import { InvoiceMail } from './invoice/mail.js';
import type { Knex } from 'knex';
import type { Messenger } from '#packages/messaging/messages.js';
import type { PaymentIntents } from '#packages/families/payments/index.js';
import { Products } from './product/commands.js';
import type { ReadPorts } from '#packages/families/read-ports.js';
import { Refunds, type RefundRef } from './refund/commands.js';
import { Subscriptions, type SubscriptionJobs } from './subscription/commands.js';
import type { PaymentRecipients } from '#packages/families/payments/index.js';
import type { RailRefunds } from '#packages/families/payments/index.js';

/** The durable timers billing sets: renewals, due dates and crash mends (packages/processes runs them). */
export interface BillingJobs extends SubscriptionJobs {
  walletApplication: Enqueue<WalletApplicationRef>;
  refundReconcile: Enqueue<RefundRef>;
}

export interface BillingDeps {
  reads: ReadPorts;
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  publicUrl: string;
  paymentIntents: PaymentIntents;
  jobs: BillingJobs;
  /** The families that hold or split payments (a refund of their payments is theirs). */
  recipients: PaymentRecipients;
  /** Refunds through a rail keeping Sika's money. */
  railRefunds: RailRefunds;
  /** The checkout sessions invoices' hosted pages pay through. */
  checkout: InvoiceCheckout;
  knex: Knex;
  messenger: Messenger;
}

/**
 * Merchant billing, one model for both surfaces (the merchant routes and /api/v1/billing, see
 * docs/billing.md): customers and wallets, products and prices, subscriptions, invoices, refunds.
 */
export class Billing {
  readonly customers: Customers;
  readonly products: Products;
  readonly invoiceIssuing: InvoiceIssuing;
  readonly invoicePayments: InvoicePayments;
  readonly invoiceWalletPayments: InvoiceWalletPayments;
  readonly subscriptions: Subscriptions;
  readonly refunds: Refunds;

  constructor(deps: BillingDeps) {
    const { reads, store, clock, jobs } = deps;
    this.customers = new Customers({ directory: reads, store, clock });
    this.products = new Products({ store, clock });
    // Invoices and subscriptions call each other (a period issues an invoice; a settled invoice may end past_due).
    const invoiceDeps: InvoiceDeps = {
      reads,
      store,
      clock,
      publicUrl: deps.publicUrl,
      customers: this.customers,
      paymentIntents: deps.paymentIntents,
      checkout: deps.checkout,
      messages: new InvoiceMail({ knex: deps.knex, messenger: deps.messenger, customers: reads }),
      scheduleWalletApplication: jobs.walletApplication,
      onSettled: (state) => this.subscriptions.invoiceSettled(state),
      subscriptionCustomer: async (who, id) => (await this.subscriptions.owned(who, id))?.subscription?.customer ?? null,
    };
    // One use case each, on the same invoice streams.
    this.invoiceIssuing = new InvoiceIssuing(invoiceDeps);
    this.invoicePayments = new InvoicePayments(invoiceDeps);
    this.invoiceWalletPayments = new InvoiceWalletPayments(invoiceDeps);
    this.subscriptions = new Subscriptions({ prices: reads, store, clock, customers: this.customers, products: this.products, invoices: this.invoiceIssuing, jobs });
    this.refunds = new Refunds({ store, ledger: deps.ledger, clock, scheduleReconcile: jobs.refundReconcile, recipients: deps.recipients, railRefunds: deps.railRefunds });
  }
}
