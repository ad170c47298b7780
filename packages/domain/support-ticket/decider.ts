import type { Decider } from '../../core/decider.js';
import { Refusal } from '../../core/refusal.js';
import { present, unreachable } from '../aggregate.js';
import type { SupportTicketEvent, SupportTicketObject, TicketSubmitted } from './events.js';

export type SupportTicketCommand = { type: 'submit'; ticket: TicketSubmitted } | { type: 'record_forwarded'; to: string | null; at: Date };

export interface SupportTicketState {
  ticket: TicketSubmitted | null;
  forwarded: boolean;
}

export function toSupportTicketObject(ticket: TicketSubmitted): SupportTicketObject {
  const t = present(ticket, 'support ticket');
  return { id: t.id, object: 'support_ticket', status: 'received', category: t.category, subject: t.subject, email: t.email, createdAt: t.submittedAt, livemode: t.environment === 'live' };
}

/** A support ticket: submitted once, forwarded to the support address once. */
export const supportTicketDecider: Decider<SupportTicketCommand, SupportTicketState, SupportTicketEvent> = {
  initialState: { ticket: null, forwarded: false },

  evolve(state, event) {
    switch (event.type) {
      case 'support_ticket.submitted': {
        const { object: _object, ...ticket } = event.data;
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
        return [{ type: 'support_ticket.submitted', data: { ...command.ticket, object: toSupportTicketObject(command.ticket) } }];
      case 'record_forwarded':
        // A job that runs again after a crash forwards nothing twice.
        if (!state.ticket || state.forwarded) return [];
        return [{ type: 'support_ticket.forwarded', data: { to: command.to, at: command.at.toISOString() } }];
      default:
        return unreachable(command);
    }
  },
};
