import type { Owner } from '#packages/core/owner.js';

/**
 * The messages the service sends to people (codes, links, invitations): the port. Domain services
 * say what to send; the adapter (packages/messaging) records it and delivers it by e-mail or SMS.
 */
export type MessageChannel = 'email' | 'sms';

export type MessagePurpose =
  | 'signup_code'
  | 'signup_existing_account'
  | 'magic_link'
  | 'password_reset'
  | 'password_changed'
  | 'invitation'
  | 'mfa_code'
  | 'email_change'
  | 'phone_change_code'
  /** A factor added or removed, an address or password changed: told to the user. */
  | 'security_notice'
  /** The sign-in code of a merchant's customer to the customer portal (docs/customer-portal.md). */
  | 'customer_portal_code'
  /** A merchant's support request, to the support address (docs/support.md). */
  | 'support_request'
  /** A merchant's own message, sent by a step of one of its automations (docs/automations.md). */
  | 'automation'
  /** An invoice sent to the merchant's customer, with the link to pay it (docs/billing.md). */
  | 'invoice_sent'
  /** The receipt of a paid invoice, to the merchant's customer. */
  | 'invoice_reminder'
  | 'invoice_receipt'
  /** The platform's decision on a merchant's activation application, to its owners and admins (docs/merchants.md, "Going live"). */
  | 'activation_decision';

export interface Message {
  channel: MessageChannel;
  /** An e-mail address, or an E.164 number. */
  to: string;
  subject: string;
  text: string;
  /** The HTML part of an e-mail, when its template has one (the text part is always sent). */
  html?: string;
  /** Identifies the e-mail (Message-ID) so that a resend after a crash can be recognised as the same message. */
  messageId?: string;
  purpose: MessagePurpose;
  /** Where replies go, when not to the sender (a support request: the merchant who wrote it). */
  replyTo?: string;
  /**
   * Whose message it is, when a merchant's rather than the service's (a portal code to its
   * customer, an automation's e-mail). The messenger sends it under the merchant's name from the
   * merchants' sender with the merchant's Reply-To, never from the address account codes and links
   * come from, and in the sandbox delivers it only to the merchant's own team (docs/operations.md,
   * "Merchants' messages").
   */
  merchant?: Owner;
}

/**
 * What became of a message: `delivered` by a transport, `kept` in the outbox (no transport: the
 * sandbox), `held` there on purpose (a sandbox merchant's message outside its team: the reason), or `failed` with the transport's error.
 */
export type MessageOutcome = { status: 'delivered' } | { status: 'kept' } | { status: 'held'; reason: string } | { status: 'failed'; error: string };

/**
 * A message written by the template engine (docs/templates.md) from the template of
 * `template.purpose` and its values: the published template of `merchant` when it has one (the
 * messages a merchant's customers get), else the built-in one (account messages have no merchant).
 */
export interface TemplatedMessage {
  channel: MessageChannel;
  to: string;
  purpose: MessagePurpose;
  /** As a written message's; also whose published template writes it. */
  merchant?: Owner;
  /** `locale`: the reader's language when the template has it (else its default). */
  template: { purpose: string; values: Record<string, unknown>; locale?: string };
}

/** What domain services hand the messenger: a message written out, or one to write from its template. */
export type OutgoingMessage = Message | TemplatedMessage;

export interface Messenger {
  send(message: OutgoingMessage): Promise<MessageOutcome>;
  /** Why `send` would hold a message of `merchant` to `to` rather than deliver it, if it would (the sandbox, outside its team). */
  holdOf(merchant: Owner, channel: MessageChannel, to: string): Promise<string | undefined>;
}

/** A message's subject and texts, as the template engine wrote them. */
export interface ComposedMessage {
  subject: string;
  text: string;
  html?: string;
}

/**
 * What writes a message from its purpose's template (the templates family's composer): the
 * merchant's published template when `owner` has one, else the built-in one.
 */
export interface MessageComposer {
  compose(owner: Owner | null, purpose: string, values: Record<string, unknown>, locale?: string): Promise<ComposedMessage>;
}

/** A composer of messages that also renders documents (an invoice's or a receipt's PDF) from the merchant's templates. */
export interface DocumentComposer extends MessageComposer {
  document(owner: Owner, purpose: string, values: Record<string, unknown>, at: Date): Promise<Buffer>;
}

/** Whom a merchant's messages come from, and whom a sandbox merchant may write to (the merchants' and accounts' read sides). */
export interface SenderDirectory {
  /** The merchant's name and notice address, if the merchant exists. */
  sender(merchantId: string): Promise<{ name: string; email: string | null } | undefined>;
  /** The addresses and numbers members of the merchant's organization verified. */
  verifiedTeamContacts(merchantId: string): Promise<{ emails: readonly string[]; phones: readonly string[] }>;
}
