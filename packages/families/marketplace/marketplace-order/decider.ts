import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { OrderCreated, OrderEvent, OrderRefunded, OrderStatus } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type OrderCommand =
  | { type: 'create'; order: OrderCreated }
  | ({ owner: Owner; at: Date } & ({ type: 'mark_paid'; fee: number } | { type: 'refund'; refundId: string; amountMinor: number; reason: string | null } | { type: 'cancel' }));

export interface OrderState {
  order: OrderCreated | null;
  status: OrderStatus;
  fee: number | null;
  refundedMinor: number;
  refunds: Map<string, OrderRefunded>;
  paidAt: string | null;
  canceledAt: string | null;
}

/** The statuses each command acts in; outside them it is refused (or, for a repeated payment, changes nothing). */
export const ORDER_TRANSITIONS = {
  mark_paid: ['requires_payment'], // → paid
  refund: ['paid', 'partially_refunded'], // → partially_refunded | refunded
  cancel: ['requires_payment'], // → canceled
} as const satisfies Record<Exclude<OrderCommand['type'], 'create'>, readonly OrderStatus[]>;

const allows = (command: keyof typeof ORDER_TRANSITIONS, status: OrderStatus) => (ORDER_TRANSITIONS[command] as readonly OrderStatus[]).includes(status);

/**
 * A marketplace order: its lines and split are fixed at creation; its payment intent's success
 * marks it paid (once); refunds count against the amount paid, never beyond it.
 */
export const orderDecider: Decider<OrderCommand, OrderState, Fact<OrderEvent>> = {
  initialState: { order: null, status: 'requires_payment', fee: null, refundedMinor: 0, refunds: new Map(), paidAt: null, canceledAt: null },

  evolve(state, event) {
    switch (event.type) {
      case 'marketplace_order.created':
        return { ...state, order: event.data, status: 'requires_payment' };
      case 'marketplace_order.paid':
        return { ...state, status: 'paid', fee: event.data.fee, paidAt: event.data.at };
      case 'marketplace_order.refunded': {
        const refundedMinor = state.refundedMinor + event.data.amountMinor;
        return {
          ...state,
          refundedMinor,
          refunds: new Map(state.refunds).set(event.data.refundId, event.data),
          status: refundedMinor === state.order!.amountMinor ? 'refunded' : 'partially_refunded',
        };
      }
      case 'marketplace_order.canceled':
        return { ...state, status: 'canceled', canceledAt: event.data.at };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.order) throw new Refusal('IKW-RES-003', `Order ${command.order.id} already exists`);
      return [{ type: 'marketplace_order.created', data: command.order }];
    }
    assertOwned(state.order, command.owner, 'No such marketplace order', 'orderId');
    const at = command.at.toISOString();
    switch (command.type) {
      case 'mark_paid':
        // A payment recorded again (a repeated callback) changes nothing.
        if (!allows('mark_paid', state.status)) return [];
        return [{ type: 'marketplace_order.paid', data: { fee: command.fee, at } }];
      case 'refund': {
        if (state.refunds.has(command.refundId)) return [];
        if (!allows('refund', state.status)) throw new Refusal('IKW-MKT-004', `Order ${state.order.id} is ${state.status}; only a paid order can be refunded`, 'orderId');
        const left = state.order.amountMinor - state.refundedMinor;
        if (command.amountMinor > left) throw new Refusal('IKW-MKT-005', `At most ${left} of this order remains refundable`, 'amount');
        return [{ type: 'marketplace_order.refunded', data: { refundId: command.refundId, amountMinor: command.amountMinor, reason: command.reason, at } }];
      }
      case 'cancel':
        if (state.status === 'canceled') return [];
        if (!allows('cancel', state.status)) throw new Refusal('IKW-MKT-004', `Order ${state.order.id} is ${state.status} and cannot be canceled; refund it instead`, 'orderId');
        return [{ type: 'marketplace_order.canceled', data: { at } }];
      default:
        return unreachable(command);
    }
  },
};
