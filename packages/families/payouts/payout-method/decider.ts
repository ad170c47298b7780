import { Refusal } from '#packages/core/refusal.js';
import type { Decider } from '#packages/core/decider.js';
import { assertOwned, isOwned } from '#packages/core/aggregate.js';
import type { PayoutMethodCreated, PayoutMethodEvent } from './events.js';
import type { Environment } from '#packages/core/owner.js';

export type PayoutMethodCommand = { type: 'create'; method: PayoutMethodCreated } | { type: 'deactivate'; merchantId: string; environment: Environment; at: Date };

export interface PayoutMethodState {
  method: PayoutMethodCreated | null;
  active: boolean;
  deactivatedAt: string | null;
}

/** Saved destinations: created, usable after a safety delay, deactivated (never erased: payouts refer to them). */
export const payoutMethodDecider: Decider<PayoutMethodCommand, PayoutMethodState, PayoutMethodEvent> = {
  initialState: { method: null, active: false, deactivatedAt: null },
  evolve(state, event) {
    switch (event.type) {
      case 'payout_method.created':
        return { method: event.data, active: true, deactivatedAt: null };
      case 'payout_method.deactivated':
        return { ...state, active: false, deactivatedAt: event.data.deactivatedAt };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'create':
        if (state.method) throw new Refusal('IKW-RES-003', 'This destination already exists');
        return [{ type: 'payout_method.created', data: command.method }];
      case 'deactivate': {
        const m = state.method;
        assertOwned(m, command, 'No such payout destination', 'payoutMethodId');
        if (!state.active) return [];
        return [{ type: 'payout_method.deactivated', data: { id: m.id, deactivatedAt: command.at.toISOString() } }];
      }
    }
  },
};

/** Why a saved destination cannot receive a payout now, or null when it can. */
export function unusableReason(state: PayoutMethodState, merchantId: string, environment: Environment, at: Date): 'missing' | 'inactive' | 'safety_delay' | null {
  const m = state.method;
  if (!isOwned(m, { merchantId, environment })) return 'missing';
  if (!state.active) return 'inactive';
  if (new Date(m.usableFrom).getTime() > at.getTime()) return 'safety_delay';
  return null;
}
