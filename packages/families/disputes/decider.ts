import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import { isClosed, type ClosedStatus, type DisputeEvent, type DisputeOpened, type DisputeStatus, type Evidence } from './events.js';

/** The rail's reading of a dispute, in Sika's words. */
export interface RailReading {
  status: DisputeStatus;
  evidenceDueBy: string | null;
  at: Date;
}

export type DisputeCommand = { type: 'open'; dispute: DisputeOpened } | { type: 'sync'; reading: RailReading } | { type: 'submit_evidence'; evidence: Evidence; at: Date } | { type: 'accept'; at: Date };

export interface DisputeState {
  dispute: DisputeOpened | null;
  status: DisputeStatus;
  evidenceDueBy: string | null;
  evidence: Evidence | null;
  closedAt: string | null;
}

/** Whether the merchant may still answer: the dispute awaits its response and the due date has not passed. */
export function answerRefusal(state: DisputeState, at: Date): Refusal | null {
  if (state.status !== 'needs_response') return new Refusal('IKW-DSP-001', `The dispute is ${state.status}: it does not await the merchant's response`);
  if (state.evidenceDueBy && at.getTime() > Date.parse(state.evidenceDueBy)) return new Refusal('IKW-DSP-002', `Evidence was due by ${state.evidenceDueBy}`);
  return null;
}

/**
 * A card dispute (docs/disputes.md): opened once by the rail's news, moved by what the rail says
 * (read, never believed from a webhook), answered by the merchant (evidence, or accepting the
 * loss), closed once as won, lost or accepted. Late news of a closed dispute decides nothing.
 */
export const disputeDecider: Decider<DisputeCommand, DisputeState, Fact<DisputeEvent>> = {
  initialState: { dispute: null, status: 'needs_response', evidenceDueBy: null, evidence: null, closedAt: null },

  evolve(state, event) {
    switch (event.type) {
      case 'dispute.created': {
        // As stored, the event carries the rendered dispute too (`object`): the state keeps the fact alone.
        const { object: _object, ...dispute } = event.data as DisputeOpened & { object?: unknown };
        return { ...state, dispute, status: dispute.status, evidenceDueBy: dispute.evidenceDueBy };
      }
      case 'dispute.updated':
        return { ...state, status: event.data.status, evidenceDueBy: event.data.evidenceDueBy, evidence: event.data.evidence ?? state.evidence };
      case 'dispute.closed':
        return { ...state, status: event.data.status, closedAt: event.data.at };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'open':
        // The same news again (Paystack retries, remind after create): the dispute exists already.
        if (state.dispute) return [];
        return [{ type: 'dispute.created', data: command.dispute }];
      case 'sync': {
        const { status, evidenceDueBy, at } = command.reading;
        if (!state.dispute || isClosed(state.status)) return [];
        if (isClosed(status)) return [{ type: 'dispute.closed', data: { status, at: at.toISOString() } }];
        if (status === state.status && evidenceDueBy === state.evidenceDueBy) return [];
        return [{ type: 'dispute.updated', data: { status, evidenceDueBy, at: at.toISOString() } }];
      }
      case 'submit_evidence': {
        const refusal = state.dispute ? answerRefusal(state, command.at) : null;
        if (refusal) throw refusal;
        return [{ type: 'dispute.updated', data: { status: 'under_review', evidenceDueBy: state.evidenceDueBy, evidence: command.evidence, at: command.at.toISOString() } }];
      }
      case 'accept': {
        if (isClosed(state.status)) throw new Refusal('IKW-DSP-003', `The dispute is ${state.status} already`);
        const accepted: ClosedStatus = 'accepted';
        return [{ type: 'dispute.closed', data: { status: accepted, at: command.at.toISOString() } }];
      }
      default:
        return unreachable(command);
    }
  },
};
