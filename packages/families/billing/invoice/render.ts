import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { InvoiceEvent, InvoiceObject } from './events.js';
import { amountRemaining, dueDate, type InvoiceCommand, invoiceDecider, type InvoiceState, secondsOrNull } from './decider.js';

/** The public invoice: what the API answers and what its events carry (`data.object`). */
export function toInvoiceObject(state: InvoiceState): InvoiceObject {
  const i = present(state.invoice, 'invoice');
  return {
    id: i.id,
    object: 'invoice',
    customer: i.customer,
    subscription: i.subscription,
    status: state.status,
    currency: i.currency,
    amount_due: i.amountDue,
    amount_paid: state.amountPaid,
    amount_remaining: amountRemaining(state),
    due_date: dueDate(i.dueAt),
    hosted_invoice_url: i.hostedUrl,
    description: i.description,
    lines: i.lines,
    period_start: secondsOrNull(i.periodStart),
    period_end: secondsOrNull(i.periodEnd),
    payment_intent: state.latestPaymentIntent,
    status_transitions: {
      finalized_at: secondsOrNull(state.finalizedAt),
      paid_at: secondsOrNull(state.paidAt),
      voided_at: secondsOrNull(state.voidedAt),
      marked_uncollectible_at: secondsOrNull(state.uncollectibleAt),
    },
    metadata: i.metadata,
    created: unixSeconds(new Date(i.createdAt)),
    livemode: i.environment === 'live',
  };
}

/** The invoice aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const invoiceAggregate: Decider<InvoiceCommand, InvoiceState, Fact<InvoiceEvent>> = { ...invoiceDecider, render: { object: toInvoiceObject } };
