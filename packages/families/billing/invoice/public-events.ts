import { testId, statusOf, statusFor, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { InvoiceObject } from './events.js';

/** Invoices' public events (docs/billing.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const invoicePublicEvents: PublicEvents = {
  types: [
    { type: 'invoice.created', emittedBy: 'POST /api/v1/merchant/invoices, POST /api/v1/billing/invoices, a subscription period', data: 'the Invoice' },
    { type: 'invoice.finalized', emittedBy: 'draft → open (PATCH …/status), billing and subscription invoices at creation', data: 'the Invoice' },
    { type: 'invoice.updated', emittedBy: 'a partial payment (wallet or payment intent)', data: 'the Invoice' },
    { type: 'invoice.paid', emittedBy: 'the last payment, or PATCH …/status to paid', data: 'the Invoice' },
    { type: 'invoice.voided', emittedBy: 'PATCH …/status to void', data: 'the Invoice' },
    { type: 'invoice.marked_uncollectible', emittedBy: 'PATCH …/status to uncollectible', data: 'the Invoice' },
  ],
  example: invoice,
};

function invoice(type: string, created: number, livemode: boolean): InvoiceObject {
  const change = statusOf(type);
  const status = statusFor(type, { created: 'draft', finalized: 'open', updated: 'open', paid: 'paid', voided: 'void', marked_uncollectible: 'uncollectible' });
  const paid = status === 'paid' ? 10000 : change === 'updated' ? 4000 : 0;
  const id = testId('in');
  return {
    id,
    object: 'invoice',
    customer: testId('cus'),
    subscription: null,
    status,
    currency: CURRENCY,
    amount_due: 10000,
    amount_paid: paid,
    amount_remaining: 10000 - paid,
    due_date: new Date((created + 7 * 86_400) * 1000).toISOString().slice(0, 10),
    hosted_invoice_url: `https://pay.sika.example/invoices/${id}`,
    description: 'Test invoice',
    lines: [{ description: 'Premium plan', price: testId('price'), quantity: 1, unit_amount: 10000, amount: 10000, meter_key: null }],
    period_start: null,
    period_end: null,
    payment_intent: paid > 0 ? testId('pi') : null,
    status_transitions: {
      finalized_at: status === 'draft' ? null : created,
      paid_at: status === 'paid' ? created : null,
      voided_at: status === 'void' ? created : null,
      marked_uncollectible_at: status === 'uncollectible' ? created : null,
    },
    metadata: {},
    created,
    livemode,
  };
}
