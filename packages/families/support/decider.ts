import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import type { SupportTicketEvent, TicketSubmitted } from './events.js';

export type SupportTicketCommand = { type: 'submit'; ticket: TicketSubmitted } | { type: 'record_forwarded'; to: string | null; at: Date };

export interface SupportTicketState {
  ticket: TicketSubmitted | null;
  forwarded: boolean;
}

/** A support ticket: submitted once, forwarded to the support address once. */
export const supportTicketDecider: Decider<SupportTicketCommand, SupportTicketState, Fact<SupportTicketEvent>> = {
  initialState: { ticket: null, forwarded: false },

  evolve(state, event) {
    switch (event.type) {
      case 'support_ticket.submitted': {
        // As stored, the submission carries the rendered ticket too (`object`): the state keeps the fact alone.
        const { object: _object, ...ticket } = event.data as TicketSubmitted & { object?: unknown };
        return { ...state, ticket };
      }
      case 'support_ticket.forwarded':
        return { ...state, forwarded: true };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'submit':
        if (state.ticket) throw new Refusal('IKW-RES-003', `Support ticket ${command.ticket.id} already exists`);
        return [{ type: 'support_ticket.submitted', data: command.ticket }];
      case 'record_forwarded':
        // A job that runs again after a crash forwards nothing twice.
        if (!state.ticket || state.forwarded) return [];
        return [{ type: 'support_ticket.forwarded', data: { to: command.to, at: command.at.toISOString() } }];
      default:
        return unreachable(command);
    }
  },
};
