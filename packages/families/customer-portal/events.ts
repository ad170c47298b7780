import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** A sign-in to the customer portal: a one-time code sent to the e-mail address of a merchant's customer. */
export interface PortalChallenge {
  id: string;
  merchantId: string;
  environment: Environment;
  /** The customer this address belongs to; null when the merchant has none (the code is never sent, and never matches). */
  customerId: string | null;
  email: string;
  /** The keyed hash of the code: the code itself is only in the e-mail. */
  codeHash: string;
  expiresAt: string;
  createdAt: string;
}

/** Internal events: nothing here is a webhook; the portal session is what the customer holds. */
export type CustomerPortalEvent =
  | DomainEvent<'customer_portal.code_sent', PortalChallenge>
  | DomainEvent<'customer_portal.code_failed', { at: string }>
  | DomainEvent<'customer_portal.signed_in', { sessionId: string; tokenHash: string; customerId: string; expiresAt: string; at: string }>
  | DomainEvent<'customer_portal.signed_out', { sessionId: string; at: string }>;

export const customerPortalStream = (challengeId: string) => `customer_portal_signin-${challengeId}`;
