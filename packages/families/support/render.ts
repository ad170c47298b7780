import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import { supportTicketDecider, type SupportTicketCommand, type SupportTicketState } from './decider.js';
import type { SupportTicketEvent, SupportTicketObject, TicketSubmitted } from './events.js';

/** What the merchant gets back and what `support_ticket.submitted` carries (`data.object`): a reference to quote, never the context. */
export function toSupportTicketObject(ticket: TicketSubmitted | null): SupportTicketObject {
  const t = present(ticket, 'support ticket');
  return { id: t.id, object: 'support_ticket', status: 'received', category: t.category, subject: t.subject, email: t.email, createdAt: t.submittedAt, livemode: t.environment === 'live' };
}

/** Support tickets as the command handler runs them: the submission is stored with the ticket; the forwarding (bookkeeping) carries none. */
export const supportTicketAggregate: Decider<SupportTicketCommand, SupportTicketState, Fact<SupportTicketEvent>> = {
  ...supportTicketDecider,
  render: { object: (state) => toSupportTicketObject(state.ticket), internal: ['support_ticket.forwarded'] },
};
