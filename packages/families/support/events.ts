import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

export type SupportCategory = 'payments' | 'payouts' | 'account' | 'technical' | 'billing' | 'other';
export const SUPPORT_CATEGORIES: readonly SupportCategory[] = ['payments', 'payouts', 'account', 'technical', 'billing', 'other'];

/** Who asked and from where: attached to the ticket so support needs no back-and-forth. */
export interface MerchantContext {
  merchantName: string | null;
  livemode: boolean;
  /** The API key or user that sent it. */
  actor: string;
  userId: string | null;
  requestId: string;
  userAgent: string | null;
  /** The dashboard page (or URL) it was sent from. */
  page: string | null;
  /** The object it is about (a payment, a payout…), when given. */
  relatedObject: string | null;
}

export interface TicketSubmitted {
  id: string;
  merchantId: string;
  environment: Environment;
  name: string;
  email: string;
  subject: string;
  message: string;
  category: SupportCategory;
  context: MerchantContext;
  submittedAt: string;
}

/** What the merchant gets back: a reference to quote, never the context. */
export interface SupportTicketObject {
  id: string;
  object: 'support_ticket';
  status: 'received';
  category: SupportCategory;
  subject: string;
  email: string;
  createdAt: string;
  livemode: boolean;
}

export type SupportTicketEvent =
  | DomainEvent<'support_ticket.submitted', TicketSubmitted & { object: SupportTicketObject }>
  /** The e-mail to the support address left (or there is no address to send it to: `to` null). */
  | DomainEvent<'support_ticket.forwarded', { to: string | null; at: string }>;

export const supportTicketStream = (id: string) => `support_ticket-${id}`;
