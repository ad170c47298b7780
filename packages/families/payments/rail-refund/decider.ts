import type { Decider } from '#packages/core/decider.js';
import type { CollectOutcome } from '#packages/connectors/port.js';
import type { RailRefundEvent, RailRefundRecord, RailRefundStatus } from './events.js';

export type RailRefundCommand =
  | { type: 'request'; refund: RailRefundRecord }
  /** The rail's final answer; nothing once the refund has one. */
  | { type: 'end'; refundId: string; outcome: CollectOutcome; at: Date };

export interface RailRefundState {
  refund: RailRefundRecord | null;
  status: RailRefundStatus;
}

/** A refund through a rail: requested (pending), then succeeded or failed once, whatever tells it how often. */
export const railRefundDecider: Decider<RailRefundCommand, RailRefundState, RailRefundEvent> = {
  initialState: { refund: null, status: 'pending' },

  evolve(state, event) {
    switch (event.type) {
      case 'rail_refund.requested':
        return { refund: event.data.refund, status: 'pending' };
      case 'rail_refund.succeeded':
        return { ...state, status: 'succeeded' };
      case 'rail_refund.failed':
        return { ...state, status: 'failed' };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'request':
        return state.refund ? [] : [{ type: 'rail_refund.requested', data: { refund: command.refund } }];
      case 'end': {
        if (!state.refund || state.status !== 'pending') return [];
        const at = command.at.toISOString();
        const o = command.outcome;
        return o.status === 'succeeded'
          ? [{ type: 'rail_refund.succeeded', data: { refundId: command.refundId, ...(o.providerReference ? { providerReference: o.providerReference } : {}), at } }]
          : [{ type: 'rail_refund.failed', data: { refundId: command.refundId, failureCode: o.failureCode, failureMessage: o.failureMessage, at } }];
      }
    }
  },
};
