import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, present, unreachable } from '#packages/core/aggregate.js';
import type { PaymentIntentStatus } from '#packages/families/payments/index.js';
import type { CheckoutPaymentStatus, CheckoutSessionCreated, CheckoutSessionEvent, CheckoutSessionStatus } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type CheckoutSessionCommand =
  | { type: 'create'; session: CheckoutSessionCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'attach_payment_intent'; paymentIntentId: string; attempt: number; amount: number; paymentStatus: CheckoutPaymentStatus }
      | { type: 'cancel'; paymentStatus: CheckoutPaymentStatus }
      | { type: 'expire'; paymentStatus: CheckoutPaymentStatus }
    ));

export interface CheckoutSessionState {
  session: CheckoutSessionCreated | null;
  /** The intent of the latest payment attempt, its attempt number (from 1) and the amount it collects. */
  paymentIntentId: string | null;
  attempt: number;
  amountTotal: number | null;
  canceledAt: string | null;
  /** When the merchant expired it, before its `expiresAt`; null while it keeps its own lifetime. */
  expiredAt: string | null;
}

export const initialCheckoutSessionState: CheckoutSessionState = { session: null, paymentIntentId: null, attempt: 0, amountTotal: null, canceledAt: null, expiredAt: null };

/** What sessionStatus needs of a session: its end (canceled, expired early) and its lifetime. */
export type SessionTimes = Pick<CheckoutSessionState, 'canceledAt' | 'expiredAt'> & { session: Pick<CheckoutSessionCreated, 'expiresAt'> };

/** When the session stops taking payments: its lifetime's end, or earlier when the merchant expired it. */
export const expiresAtOf = (state: SessionTimes): string => state.expiredAt ?? state.session.expiresAt;

/** What the customer's payment stands at, from the status of the latest attempt's intent. */
export function paymentStatusOf(intentStatus: PaymentIntentStatus | null): CheckoutPaymentStatus {
  switch (intentStatus) {
    case 'processing':
    case 'requires_action':
      return 'processing';
    case 'succeeded':
      return 'paid';
    case 'failed':
      return 'failed';
    default:
      return 'unpaid';
  }
}

/**
 * The session's status at `now`: complete once paid; canceled; expired once its expiry (its
 * lifetime's end, or when the merchant expired it) passed with nothing paid and nothing with the
 * operator (a payment under way may still finish); else open.
 */
export function sessionStatus(state: SessionTimes, paymentStatus: CheckoutPaymentStatus, now: Date): CheckoutSessionStatus {
  if (paymentStatus === 'paid') return 'complete';
  if (state.canceledAt !== null) return 'canceled';
  if (paymentStatus !== 'processing' && now.getTime() >= Date.parse(expiresAtOf(state))) return 'expired';
  return 'open';
}

/** Refuses a change to a session that no longer takes one (paid, canceled, expired). */
function assertOpen(state: CheckoutSessionState, paymentStatus: CheckoutPaymentStatus, at: Date): void {
  const status = sessionStatus({ canceledAt: state.canceledAt, expiredAt: state.expiredAt, session: present(state.session, 'checkout session') }, paymentStatus, at);
  if (status !== 'open') throw new Refusal('IKW-CHK-001', `The checkout session is ${status}`, 'checkoutSessionId');
}

/**
 * Checkout sessions. The session keeps its payment attempts (one payment intent each, numbered);
 * the intents themselves hold the payment's progress. Commands carry the latest attempt's
 * payment status, read from its intent, since a session's openness depends on it.
 */
export const checkoutSessionDecider: Decider<CheckoutSessionCommand, CheckoutSessionState, CheckoutSessionEvent> = {
  initialState: initialCheckoutSessionState,

  evolve(state, event) {
    switch (event.type) {
      case 'checkout_session.created':
        return { ...state, session: event.data };
      case 'checkout_session.payment_intent_attached':
        return { ...state, paymentIntentId: event.data.paymentIntentId, attempt: event.data.attempt, amountTotal: event.data.amount };
      case 'checkout_session.canceled':
        return { ...state, canceledAt: event.data.at };
      case 'checkout_session.expired':
        return { ...state, expiredAt: event.data.at };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.session) throw new Refusal('IKW-RES-003', `Checkout session ${command.session.id} already exists`);
      return [{ type: 'checkout_session.created', data: command.session }];
    }
    assertOwned(state.session, command.owner, 'No such checkout session', 'checkoutSessionId');
    const at = command.at.toISOString();
    switch (command.type) {
      case 'attach_payment_intent':
        // Requests racing for the same attempt make the same intent (its id is derived from the attempt): the first attaches it.
        if (command.attempt <= state.attempt) return [];
        assertOpen(state, command.paymentStatus, command.at);
        return [{ type: 'checkout_session.payment_intent_attached', data: { paymentIntentId: command.paymentIntentId, attempt: command.attempt, amount: command.amount, at } }];
      case 'cancel':
        if (state.canceledAt !== null) return [];
        if (command.paymentStatus === 'processing') throw new Refusal('IKW-RES-002', 'A payment of this checkout session is with the operator; it cannot be canceled now', 'checkoutSessionId');
        assertOpen(state, command.paymentStatus, command.at);
        return [{ type: 'checkout_session.canceled', data: { at } }];
      case 'expire':
        // As a lifetime's end, it waits for a payment with the operator; a session no longer open stays as it is.
        if (command.paymentStatus === 'processing') throw new Refusal('IKW-RES-002', 'A payment of this checkout session is with the operator; it cannot be expired now', 'checkoutSessionId');
        assertOpen(state, command.paymentStatus, command.at);
        return [{ type: 'checkout_session.expired', data: { at } }];
      default:
        return unreachable(command);
    }
  },
};
