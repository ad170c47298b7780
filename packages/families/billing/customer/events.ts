import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

export interface CustomerCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  name: string | null;
  email: string | null;
  phone: string | null;
  currency: string | null;
  metadata: Record<string, string>;
  createdAt: string;
}

/** The Customer as the API returns it; `balance` is the wallet, in minor units of `currency`. */
export interface CustomerObject {
  id: string;
  object: 'customer';
  name: string | null;
  email: string | null;
  phone: string | null;
  currency: string | null;
  balance: number;
  metadata: Record<string, string>;
  created: number;
  livemode: boolean;
}

/** Why money entered a wallet. */
export type CreditReason = 'merchant_credit' | 'invoice_overpayment' | 'invoice_voided';

type WithObject<D> = D & { object: CustomerObject };

/**
 * The customer stream also holds the customer's wallet: credits, and applications of the wallet to
 * invoices. An application is decided here (the balance check is this stream's), then offered to
 * the invoice; what the invoice could not take comes back with `customer.balance_returned`.
 */
export type CustomerEvent =
  // `object` is absent on customers created before billing existed; they are not sent as webhooks.
  | DomainEvent<'customer.created', CustomerCreated & { object?: CustomerObject }>
  /** A name filled in, or the contact details the customer changed (portal): only what changed. */
  | DomainEvent<'customer.updated', WithObject<{ name?: string; phone?: string | null; metadata?: Record<string, string> }>>
  | DomainEvent<'customer.balance_credited', WithObject<{ creditId: string; amount: number; currency: string; reason: CreditReason; source: string | null; at: string }>>
  | DomainEvent<'customer.balance_applied', WithObject<{ applicationId: string; invoiceId: string; amount: number; currency: string; at: string }>>
  | DomainEvent<'customer.balance_returned', WithObject<{ applicationId: string; invoiceId: string; amount: number; at: string }>>;

export const customerStream = (id: string) => `customer-${id}`;
