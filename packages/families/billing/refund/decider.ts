import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import type { Owner } from '#packages/core/owner.js';
import type { RefundCreated, RefundedPayment, RefundEvent, RefundReason, RefundStatus } from './events.js';

export type RefundCommand = { owner: Owner; at: Date } & (
  | {
      type: 'create';
      payment: RefundedPayment;
      refundId: string;
      amount: number;
      reason: RefundReason | null;
      /**
       * Decided with the ledger in the same commit: the refund is created already succeeded (its
       * posting is in that commit) or failed. Absent: created pending, its posting to follow (a
       * store without atomic commits), or its money held until the rail it goes back through answers.
       */
      outcome?: { status: 'succeeded' } | { status: 'failed'; failureReason: string };
    }
  | { type: 'succeed'; refundId: string }
  | { type: 'fail'; refundId: string; failureReason: string; failureCode?: string; failureMessage?: string }
);

export interface RefundRecord extends RefundCreated {
  status: RefundStatus;
  failureReason: string | null;
  /** Set when the rail failed it: its code and words. */
  failureCode?: string;
  failureMessage?: string;
}

export interface PaymentRefundsState {
  payment: RefundedPayment | null;
  refunds: ReadonlyMap<string, RefundRecord>;
  /** Pending and succeeded refunds: what is no longer refundable. */
  committed: number;
}

export const initialPaymentRefundsState: PaymentRefundsState = { payment: null, refunds: new Map(), committed: 0 };

export function refundable(state: PaymentRefundsState): number {
  return state.payment ? state.payment.amount - state.committed : 0;
}

function setStatus(state: PaymentRefundsState, refundId: string, status: RefundStatus, failure: Pick<RefundRecord, 'failureReason' | 'failureCode' | 'failureMessage'>): PaymentRefundsState {
  const r = state.refunds.get(refundId);
  if (!r) return state;
  const released = status === 'failed' && r.status !== 'failed' ? r.amount : 0;
  return { ...state, refunds: new Map(state.refunds).set(refundId, { ...r, status, ...failure }), committed: state.committed - released };
}

/**
 * The refunds of one payment. A new refund is accepted only if it fits in what remains
 * (amount paid − pending and succeeded refunds), and since every refund of the payment is an
 * append to this stream with the version read, racing refunds cannot together exceed the amount.
 */
export const paymentRefundsDecider: Decider<RefundCommand, PaymentRefundsState, Fact<RefundEvent>> = {
  initialState: initialPaymentRefundsState,

  evolve(state, event) {
    switch (event.type) {
      case 'refund.created': {
        const r = event.data.refund;
        return {
          payment: state.payment ?? event.data.payment,
          refunds: new Map(state.refunds).set(r.id, { ...r, status: 'pending', failureReason: null }),
          committed: state.committed + r.amount,
        };
      }
      case 'refund.succeeded':
        return setStatus(state, event.data.refundId, 'succeeded', { failureReason: null });
      case 'refund.failed': {
        const { failureReason, failureCode, failureMessage } = event.data;
        return setStatus(state, event.data.refundId, 'failed', { failureReason, ...(failureCode ? { failureCode } : {}), ...(failureMessage ? { failureMessage } : {}) });
      }
    }
  },

  decide(command, state) {
    const payment = state.payment ?? (command.type === 'create' ? command.payment : null);
    assertOwned(payment, command.owner, 'No such payment', 'paymentId');
    const at = command.at.toISOString();
    switch (command.type) {
      case 'create': {
        if (state.refunds.has(command.refundId)) return [];
        const remaining = payment.amount - state.committed;
        if (command.amount > remaining) {
          throw new Refusal(
            'IKW-BIL-003',
            remaining === 0 ? `Payment ${payment.id} is already fully refunded` : `The refund (${command.amount}) is above what remains refundable on payment ${payment.id} (${remaining} ${payment.currency})`,
            'amount',
          );
        }
        const refund: RefundCreated = { id: command.refundId, amount: command.amount, reason: command.reason, createdAt: at };
        const drafts: Fact<RefundEvent>[] = [{ type: 'refund.created', data: { payment, refund } }];
        const outcome = command.outcome;
        if (outcome?.status === 'succeeded') drafts.push({ type: 'refund.succeeded', data: { refundId: command.refundId, at } });
        if (outcome?.status === 'failed') drafts.push({ type: 'refund.failed', data: { refundId: command.refundId, failureReason: outcome.failureReason, at } });
        return drafts;
      }
      case 'succeed':
        if (state.refunds.get(command.refundId)?.status !== 'pending') return [];
        return [{ type: 'refund.succeeded', data: { refundId: command.refundId, at } }];
      case 'fail':
        if (state.refunds.get(command.refundId)?.status !== 'pending') return [];
        return [
          {
            type: 'refund.failed',
            data: { refundId: command.refundId, failureReason: command.failureReason, at, ...(command.failureCode ? { failureCode: command.failureCode, failureMessage: command.failureMessage ?? command.failureCode } : {}) },
          },
        ];
    }
  },
};
