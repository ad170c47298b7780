import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import { INVOICE_METADATA_KEY } from '../invoice/commands.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
import { defineProcess, lanes } from '#packages/processes/process.js';
import type { Owner } from '#packages/core/owner.js';

/** A succeeded payment intent that pays an invoice: the invoice records the payment once. */
export const invoicePayment = defineProcess<Owner & { paymentIntentId: string }>({
  job: { name: 'invoice.payment_intent_succeeded', key: (p) => `invoice-payment:${p.paymentIntentId}`, lane: lanes.paymentIntent },
  handler:
    ({ billing }) =>
    (p) =>
      billing.invoicePayments.recordPaymentIntent(p),
});

export const INVOICE_PAYMENTS_CONSUMER = 'billing-payments';

/**
 * The bus consumer that notices payments of invoices: each succeeded payment intent that names
 * an invoice becomes a job, in the consumer's transaction, so none is lost or doubled.
 */
export function invoicePaymentsConsumer(clock: Clock): ConsumerSpec {
  return {
    name: INVOICE_PAYMENTS_CONSUMER,
    checkpointTable: 'bus_checkpoints',
    handles: ['payment_intent.succeeded'],
    handle: async (trx: Knex.Transaction, events: RecordedEvent[]) => {
      for (const event of events) {
        if (event.type !== 'payment_intent.succeeded') continue;
        const object = (event.data as { object?: PaymentIntentObject }).object;
        const { merchant_id: merchantId, environment } = event.metadata;
        if (!object?.metadata[INVOICE_METADATA_KEY] || !merchantId || !environment) continue;
        await enqueue(trx, invoicePayment.job, { merchantId, environment, paymentIntentId: object.id }, clock.now());
      }
    },
  };
}
