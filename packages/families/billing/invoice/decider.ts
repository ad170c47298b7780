import { unixSeconds } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import type { Owner } from '#packages/core/owner.js';
import type { InvoiceCreated, InvoiceEvent, InvoicePayment, InvoiceStatus, PaymentSource } from './events.js';

/** What PATCH …/status may do; everything else is IKW-BIL-001. */
export const INVOICE_TRANSITIONS: Readonly<Record<InvoiceStatus, readonly InvoiceStatus[]>> = {
  draft: ['open'],
  open: ['paid', 'void', 'uncollectible'],
  uncollectible: ['paid', 'void'],
  paid: [],
  void: [],
};

/** Statuses in which an invoice takes payments (wallet, payment intents). */
export const PAYABLE: readonly InvoiceStatus[] = ['open', 'uncollectible'];

export type InvoiceCommand =
  | { type: 'create'; invoice: InvoiceCreated; finalize: boolean; at: Date }
  | ({ owner: Owner; at: Date } & (
      | { type: 'transition'; to: InvoiceStatus }
      | { type: 'record_payment'; ref: string; source: Exclude<PaymentSource, 'out_of_band'>; amount: number }
      | { type: 'attach_payment_intent'; key: string; paymentIntentId: string }
      /** `ended`: intents the caller saw end without paying (failed, canceled): an attempt of one of them gives way. */
      | { type: 'start_attempt'; paymentIntentId: string; ended: readonly string[] }
    ));

export interface InvoiceState {
  invoice: InvoiceCreated | null;
  status: InvoiceStatus;
  amountPaid: number;
  /** Paid from the customer's wallet: what goes back to the wallet if the invoice is voided. */
  walletApplied: number;
  payments: ReadonlyMap<string, InvoicePayment>;
  /** Payment intents created to pay it, by idempotency key. */
  paymentIntents: ReadonlyMap<string, string>;
  latestPaymentIntent: string | null;
  /** The payment in flight: started before its intent was confirmed, until its payment is recorded or it ends unpaid. */
  attempt: { paymentIntentId: string; at: string } | null;
  finalizedAt: string | null;
  paidAt: string | null;
  voidedAt: string | null;
  uncollectibleAt: string | null;
}

export const initialInvoiceState: InvoiceState = {
  invoice: null,
  status: 'draft',
  amountPaid: 0,
  walletApplied: 0,
  payments: new Map(),
  paymentIntents: new Map(),
  latestPaymentIntent: null,
  attempt: null,
  finalizedAt: null,
  paidAt: null,
  voidedAt: null,
  uncollectibleAt: null,
};

export const secondsOrNull = (iso: string | null) => (iso ? unixSeconds(new Date(iso)) : null);

export function amountRemaining(state: InvoiceState): number {
  return state.invoice ? Math.max(0, state.invoice.amountDue - state.amountPaid) : 0;
}

/** The interface's date string (`YYYY-MM-DD`, UTC) of the instant an invoice falls due. */
export const dueDate = (dueAt: string | null): string | null => dueAt?.slice(0, 10) ?? null;

function recordPayment(state: InvoiceState, payment: InvoicePayment): InvoiceState {
  return {
    ...state,
    // The attempt in flight paid: the invoice is free for the next one (if anything remains).
    attempt: state.attempt?.paymentIntentId === payment.ref ? null : state.attempt,
    amountPaid: state.amountPaid + payment.amount,
    walletApplied: state.walletApplied + (payment.source === 'wallet' ? payment.amount : 0),
    payments: new Map(state.payments).set(payment.ref, payment),
  };
}

/** Finalizing an invoice with nothing to pay settles it at once. */
function finalize(state: InvoiceState, at: string): Fact<InvoiceEvent>[] {
  const drafts: Fact<InvoiceEvent>[] = [{ type: 'invoice.finalized', data: { at } }];
  if (state.invoice!.amountDue === 0) drafts.push({ type: 'invoice.paid', data: { payment: { ref: 'out_of_band', source: 'out_of_band', amount: 0, offered: 0 }, at } });
  return drafts;
}

/**
 * Invoices: draft → open → paid | void | uncollectible, and uncollectible → paid | void. An open
 * (or uncollectible) invoice takes payments up to what remains; each payment is recorded once by
 * its ref, and what it could not take is reported back (`offered` − `amount`) so the caller returns
 * it to the customer's wallet.
 */
export const invoiceDecider: Decider<InvoiceCommand, InvoiceState, Fact<InvoiceEvent>> = {
  initialState: initialInvoiceState,

  evolve(state, event) {
    switch (event.type) {
      case 'invoice.created':
        return { ...state, invoice: event.data, status: 'draft' };
      case 'invoice.finalized':
        return { ...state, status: 'open', finalizedAt: event.data.at };
      case 'invoice.updated':
        return recordPayment(state, event.data.payment);
      case 'invoice.paid':
        return { ...recordPayment(state, event.data.payment), status: 'paid', paidAt: event.data.at };
      case 'invoice.voided':
        return { ...state, status: 'void', voidedAt: event.data.at };
      case 'invoice.marked_uncollectible':
        return { ...state, status: 'uncollectible', uncollectibleAt: event.data.at };
      case 'invoice.payment_intent_attached':
        return { ...state, paymentIntents: new Map(state.paymentIntents).set(event.data.key, event.data.paymentIntentId), latestPaymentIntent: event.data.paymentIntentId };
      case 'invoice.payment_attempt_started':
        return { ...state, attempt: { paymentIntentId: event.data.paymentIntentId, at: event.data.at } };
    }
  },

  decide(command, state) {
    const at = command.at.toISOString();
    if (command.type === 'create') {
      // Subscription invoices have ids fixed by the subscription's event: creating one again is a no-op.
      if (state.invoice) return [];
      const created: Fact<InvoiceEvent>[] = [{ type: 'invoice.created', data: command.invoice }];
      if (!command.finalize) return created;
      const after = invoiceDecider.evolve(state, created[0]!);
      return [...created, ...finalize(after, at)];
    }
    const i = state.invoice;
    assertOwned(i, command.owner, 'No such invoice', 'invoiceId');
    switch (command.type) {
      case 'transition': {
        if (!INVOICE_TRANSITIONS[state.status].includes(command.to)) {
          const allowed = INVOICE_TRANSITIONS[state.status];
          throw new Refusal('IKW-BIL-001', `An invoice cannot go from ${state.status} to ${command.to}${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ` (${state.status} is final)`}`, 'status');
        }
        switch (command.to) {
          case 'open':
            return finalize(state, at);
          case 'paid': {
            const remaining = amountRemaining(state);
            return [{ type: 'invoice.paid', data: { payment: { ref: 'out_of_band', source: 'out_of_band', amount: remaining, offered: remaining }, at } }];
          }
          case 'void':
            return [{ type: 'invoice.voided', data: { at } }];
          case 'uncollectible':
            return [{ type: 'invoice.marked_uncollectible', data: { at } }];
          case 'draft':
            return []; // never allowed by INVOICE_TRANSITIONS
        }
      }
      case 'record_payment': {
        if (state.payments.has(command.ref)) return [];
        // A payment intent counts only if this invoice created it; the metadata that points here is a hint, not proof.
        if (command.source === 'payment_intent' && ![...state.paymentIntents.values()].includes(command.ref)) return [];
        // Paid or voided meanwhile: nothing is taken, the caller gives the money back to the wallet.
        if (!PAYABLE.includes(state.status)) return [];
        const remaining = amountRemaining(state);
        const amount = Math.min(Math.max(0, command.amount), remaining);
        const payment: InvoicePayment = { ref: command.ref, source: command.source, amount, offered: command.amount };
        return [{ type: amount === remaining ? 'invoice.paid' : 'invoice.updated', data: { payment, at } }];
      }
      case 'attach_payment_intent': {
        if (state.paymentIntents.has(command.key)) return [];
        if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${i.id} is ${state.status}, not open for payment`, 'invoiceId');
        return [{ type: 'invoice.payment_intent_attached', data: { key: command.key, paymentIntentId: command.paymentIntentId, at } }];
      }
      case 'start_attempt': {
        // One payment in flight per invoice, whichever path started it: this decision, on the
        // invoice's stream version, is what two concurrent attempts cannot both pass.
        // The attempt in flight again, or one whose payment is recorded: its confirm answers it as it stands.
        if (state.attempt?.paymentIntentId === command.paymentIntentId || state.payments.has(command.paymentIntentId)) return [];
        if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${i.id} is ${state.status}, not open for payment`, 'invoiceId');
        if (![...state.paymentIntents.values()].includes(command.paymentIntentId)) throw new Error(`Payment intent ${command.paymentIntentId} is not attached to invoice ${i.id}`);
        if (state.attempt && !command.ended.includes(state.attempt.paymentIntentId)) {
          throw new Refusal('IKW-BIL-012', `Invoice ${i.id} already has a payment in flight (${state.attempt.paymentIntentId})`, 'invoiceId');
        }
        return [{ type: 'invoice.payment_attempt_started', data: { paymentIntentId: command.paymentIntentId, at } }];
      }
    }
  },
};
