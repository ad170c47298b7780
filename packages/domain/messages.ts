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
  /** The sign-in code of a merchant's customer to the customer portal (docs/checkout.md). */
  | 'customer_portal_code'
  /** A merchant's support request, to the support address (docs/support.md). */
  | 'support_request';

export interface Message {
  channel: MessageChannel;
  /** An e-mail address, or an E.164 number. */
  to: string;
  subject: string;
  text: string;
  purpose: MessagePurpose;
  /** Where replies go, when not to the sender (a support request: the merchant who wrote it). */
  replyTo?: string;
}

export interface Messenger {
  send(message: Message): Promise<void>;
}
