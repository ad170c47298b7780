import { unixSeconds } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { assertOwned, objectAttacher, present } from '../aggregate.js';
import type { Decider } from '../../core/decider.js';
import type { DelayReason, PayoutCreated, PayoutEvent, PayoutObject, PayoutStatus } from './events.js';

import type { Owner } from '../audit.js';

export type { Owner };

export type PayoutCommand =
  | { type: 'create'; payout: PayoutCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'submit'; result: { status: 'accepted' } | { status: 'rejected'; failureCode: string; failureMessage: string } }
      | { type: 'report_delay'; reason: DelayReason }
      | { type: 'check_overdue' }
      | { type: 'complete' }
      | { type: 'fail'; failureCode: string; failureMessage: string }
      | { type: 'cancel' }
    ));

export interface PayoutState {
  payout: PayoutCreated | null;
  status: PayoutStatus;
  delayReason: DelayReason | null;
  delayedAt: string | null;
  failure: { code: string; message: string } | null;
}

export const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['paid', 'failed', 'canceled'];

export function toPayoutObject(state: PayoutState): PayoutObject {
  const p = present(state.payout, 'payout');
  return {
    id: p.id,
    object: 'payout',
    amount: p.amount,
    currency: p.currency,
    status: state.status,
    destination: p.destination,
    payout_method_id: p.payoutMethodId,
    arrival_date_estimate: p.expectedBy,
    expected_by: p.expectedBy,
    delay_state: state.delayReason ? 'delayed' : null,
    delay_reason: state.delayReason,
    delayed_at: state.delayedAt,
    metadata: p.metadata,
    failure_code: state.failure?.code ?? null,
    failure_message: state.failure?.message ?? null,
    fee: p.fee,
    created: unixSeconds(new Date(p.createdAt)),
    livemode: p.environment === 'live',
  };
}

const withObjects = objectAttacher<PayoutState, PayoutEvent>((state, event) => payoutDecider.evolve(state, event), toPayoutObject);

/**
 * The payout lifecycle (ARCHITECTURE.md section 4): pending → in_transit → paid | failed, and
 * pending → failed | canceled. The delay overlay (delay_state, delay_reason, delayed_at) never
 * changes the status. Callbacks that come late or twice decide nothing.
 */
export const payoutDecider: Decider<PayoutCommand, PayoutState, PayoutEvent> = {
  initialState: { payout: null, status: 'pending', delayReason: null, delayedAt: null, failure: null },

  evolve(state, event) {
    switch (event.type) {
      case 'payout.created':
        return { ...state, payout: event.data, status: 'pending' };
      case 'payout.updated':
        return { ...state, status: 'in_transit' };
      case 'payout.delayed':
        return { ...state, delayReason: event.data.reason, delayedAt: state.delayedAt ?? event.data.at };
      case 'payout.paid':
        return { ...state, status: 'paid' };
      case 'payout.failed':
        return { ...state, status: 'failed', failure: { code: event.data.failureCode, message: event.data.failureMessage } };
      case 'payout.canceled':
        return { ...state, status: 'canceled' };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.payout) throw new ApiError('IKW-RES-003', `Payout ${command.payout.id} already exists`);
      return withObjects(state, [{ type: 'payout.created', data: command.payout }]);
    }
    const p = state.payout;
    assertOwned(p, command.owner, 'No such payout', 'id');
    const at = command.at.toISOString();
    const final = FINAL_PAYOUT_STATUSES.includes(state.status);
    switch (command.type) {
      case 'submit':
        if (state.status !== 'pending') return [];
        if (command.result.status === 'accepted') return withObjects(state, [{ type: 'payout.updated', data: { status: 'in_transit', at } }]);
        return withObjects(state, [{ type: 'payout.failed', data: { failureCode: command.result.failureCode, failureMessage: command.result.failureMessage, at } }]);
      case 'report_delay':
        if (final || state.delayReason === command.reason) return [];
        return withObjects(state, [{ type: 'payout.delayed', data: { reason: command.reason, at } }]);
      case 'check_overdue':
        if (final || state.delayReason || command.at.getTime() < new Date(p.expectedBy).getTime()) return [];
        return withObjects(state, [{ type: 'payout.delayed', data: { reason: 'unknown', at } }]);
      case 'complete':
        if (final) return [];
        return withObjects(state, [{ type: 'payout.paid', data: { at } }]);
      case 'fail':
        if (final) return [];
        return withObjects(state, [{ type: 'payout.failed', data: { failureCode: command.failureCode, failureMessage: command.failureMessage, at } }]);
      case 'cancel':
        if (state.status !== 'pending') throw new ApiError('IKW-RES-002', `A payout with status ${state.status} cannot be canceled`);
        return withObjects(state, [{ type: 'payout.canceled', data: { at } }]);
    }
  },
};
