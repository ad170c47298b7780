import type { ConsumerSpec } from '../../bus/consumer.js';
import type { Clock } from '../../core/clock.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Job, JobHandler, JobSpec } from '../../scheduler/scheduler.js';
import { Customers } from '../customer/commands.js';
import { Invoices, JOB_INVOICE_PAYMENT, JOB_WALLET_APPLICATION } from '../invoice/commands.js';
import type { Owner } from '../payment-intent/decider.js';
import type { PaymentIntents } from '../payment-intent/commands.js';
import { Products } from '../product/commands.js';
import { JOB_REFUND_RECONCILE, Refunds } from '../refund/commands.js';
import { JOB_SUBSCRIPTION_INVOICE_DUE, JOB_SUBSCRIPTION_ISSUE_INVOICE, JOB_SUBSCRIPTION_RENEW, Subscriptions } from '../subscription/commands.js';
import { auditMetadata } from '../audit.js';
import type { ReadPorts } from '../read-ports.js';

export interface BillingDeps {
  reads: ReadPorts;
  store: EventStore;
  clock: Clock;
  publicUrl: string;
  paymentIntents: PaymentIntents;
  schedule(job: JobSpec): Promise<void>;
}

type SubscriptionJob = Owner & { subscriptionId: string };

/** A job's payload as its kind wrote it (jobs are only ever scheduled by the code that handles them). */
const payload = <T>(job: Job): T => job.payload as unknown as T;

/**
 * Merchant billing, one model for both surfaces (the merchant routes and /api/v1/billing, see
 * docs/billing.md): customers and wallets, products and prices, subscriptions, invoices, refunds.
 */
export class Billing {
  readonly customers: Customers;
  readonly products: Products;
  readonly invoices: Invoices;
  readonly subscriptions: Subscriptions;
  readonly refunds: Refunds;
  private readonly clock: Clock;

  constructor(deps: BillingDeps) {
    const { reads, store, clock } = deps;
    this.clock = clock;
    this.customers = new Customers({ directory: reads, store, clock });
    this.products = new Products({ store, clock });
    // Invoices and subscriptions call each other (a period issues an invoice; a settled invoice may end past_due).
    this.invoices = new Invoices({
      reads,
      store,
      clock,
      publicUrl: deps.publicUrl,
      customers: this.customers,
      paymentIntents: deps.paymentIntents,
      schedule: deps.schedule,
      onSettled: (state) => this.subscriptions.invoiceSettled(state),
      subscriptionCustomer: async (who, id) => (await this.subscriptions.owned(who, id))?.subscription?.customer ?? null,
    });
    this.subscriptions = new Subscriptions({ prices: reads, store, clock, customers: this.customers, products: this.products, invoices: this.invoices, schedule: deps.schedule });
    this.refunds = new Refunds({ store, clock, schedule: deps.schedule });
  }

  /** The scheduler jobs of billing, by kind: renewals, due dates and crash mends. */
  jobs(): [string, JobHandler][] {
    return [
      [JOB_SUBSCRIPTION_RENEW, (job) => this.subscriptions.renewJob(payload<SubscriptionJob & { periodEnd: string }>(job))],
      [JOB_SUBSCRIPTION_ISSUE_INVOICE, (job) => this.subscriptions.issueJob(payload<SubscriptionJob & { invoiceId: string }>(job))],
      [JOB_SUBSCRIPTION_INVOICE_DUE, (job) => this.subscriptions.invoiceDueJob(payload<SubscriptionJob & { invoiceId: string }>(job))],
      [
        JOB_WALLET_APPLICATION,
        async (job) => {
          const p = payload<Owner & { customerId: string; applicationId: string; invoiceId: string }>(job);
          await this.invoices.completeApplication(p, auditMetadata(this.clock, p, p.invoiceId, { actor: 'scheduler' }));
        },
      ],
      [JOB_INVOICE_PAYMENT, (job) => this.invoices.recordPaymentIntent(payload<Owner & { paymentIntentId: string }>(job))],
      [JOB_REFUND_RECONCILE, (job) => this.refunds.reconcile(payload<Owner & { paymentId: string; refundId: string }>(job))],
    ];
  }

  /** The bus consumer that turns succeeded payment intents of invoices into invoice payments. */
  paymentsConsumer(): ConsumerSpec {
    return this.invoices.paymentsConsumer();
  }
}
