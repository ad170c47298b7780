import type { Clock } from '#packages/core/clock.js';
import type { Fact } from '#packages/core/decider.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { Messenger } from '#packages/messaging/messages.js';
import type { SupportTicketCommand, SupportTicketState } from './decider.js';
import { supportTicketAggregate, toSupportTicketObject } from './render.js';
import { supportTicketStream, type MerchantContext, type SupportCategory, type SupportTicketEvent, type SupportTicketObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

export interface ContactInput {
  name: string;
  email: string;
  subject: string;
  message: string;
  category?: SupportCategory;
  page?: string;
  relatedObject?: string;
}

/** The job that forwards a ticket: its id and owner. */
export interface TicketRef {
  merchantId: string;
  ticketId: string;
}

/**
 * Support intake: a merchant's request is recorded as an event, then forwarded by e-mail to the
 * support address (SUPPORT_EMAIL) by a durable job, with the merchant context attached.
 */
export class SupportTickets extends CommandService<SupportTicketCommand, SupportTicketState, Fact<SupportTicketEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock; messenger: Messenger; supportEmail: string | null }) {
    super(deps.store, supportTicketStream, supportTicketAggregate);
  }

  async submit(owner: Owner, input: ContactInput, context: Omit<MerchantContext, 'page' | 'relatedObject'>, actor: Actor, requestRef?: string): Promise<SupportTicketObject> {
    // A retry of a request with an Idempotency-Key lands on the ticket its first attempt recorded.
    const id = requestRef ? derivedUuid(`support:${owner.merchantId}:${owner.environment}:${requestRef}`) : newUuid();
    const ticket = {
      id,
      ...owner,
      name: input.name.trim(),
      email: input.email.trim().toLowerCase(),
      subject: input.subject.trim(),
      message: input.message,
      category: input.category ?? 'other',
      context: { ...context, page: input.page ?? null, relatedObject: input.relatedObject ?? null },
      submittedAt: this.deps.clock.now().toISOString(),
    };
    await this.run(id, { type: 'submit', ticket }, auditMetadata(this.deps.clock, owner, id, actor));
    return toSupportTicketObject(ticket);
  }

  /** Sends the ticket to the support address once (the job runs again after a crash; the event says it left). */
  async forward(ref: TicketRef): Promise<void> {
    const { state } = await this.load(ref.ticketId);
    const ticket = state.ticket;
    if (!ticket || state.forwarded) return;
    const to = this.deps.supportEmail;
    if (to) {
      const c = ticket.context;
      const lines = [
        ticket.message,
        '',
        '--',
        `From: ${ticket.name} <${ticket.email}>`,
        `Category: ${ticket.category}`,
        `Merchant: ${c.merchantName ?? '(unnamed)'} (${ticket.merchantId}), ${ticket.environment}`,
        `Sent by: ${c.actor}${c.userId ? ` (user ${c.userId})` : ''}`,
        ...(c.page ? [`Page: ${c.page}`] : []),
        ...(c.relatedObject ? [`About: ${c.relatedObject}`] : []),
        `Request: ${c.requestId}${c.userAgent ? `, ${c.userAgent}` : ''}`,
        `Ticket: ${ticket.id}, ${ticket.submittedAt}`,
      ];
      const outcome = await this.deps.messenger.send({
        channel: 'email',
        to,
        replyTo: ticket.email,
        subject: `[Support ${ticket.category}] ${ticket.subject} (${c.merchantName ?? ticket.merchantId})`,
        text: lines.join('\n'),
        purpose: 'support_request',
      });
      // Not recorded as forwarded: the job retries, and the ticket's text stays in its event.
      if (outcome.status === 'failed') throw new Error(`support ticket ${ticket.id} not e-mailed: ${outcome.error}`);
    }
    const owner = { merchantId: ticket.merchantId, environment: ticket.environment };
    await this.run(ticket.id, { type: 'record_forwarded', to, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, ticket.id, { actor: 'system' }), 'internal');
  }
}
