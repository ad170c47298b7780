import type { DomainEvent } from '#packages/core/decider.js';
import type { CheckoutMethodType, FeeMode } from '../checkout-session/amount.js';
import type { Environment } from '#packages/core/owner.js';

export interface PaymentLinkCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  /** The unguessable part of the public URL `/pay/{slug}`. */
  slug: string;
  /** `{PUBLIC_URL}/pay/{slug}`, the address customers open. */
  url: string;
  amount: number;
  currency: string;
  country: string;
  feeMode: FeeMode;
  description: string | null;
  paymentMethodTypes: CheckoutMethodType[];
  expiresAt: string | null;
  isSingleUse: boolean;
  /** Where the link's sessions send the customer once paid, or canceled. */
  successUrl: string | null;
  cancelUrl: string | null;
  createdAt: string;
}

/** The payment link as the API returns it. */
export interface PaymentLinkObject {
  id: string;
  object: 'payment_link';
  url: string;
  slug: string;
  amount: number;
  currency: string;
  country: string;
  feeMode: FeeMode;
  description: string | null;
  paymentMethodTypes: CheckoutMethodType[];
  expiresAt: string | null;
  isSingleUse: boolean;
  successUrl: string | null;
  cancelUrl: string | null;
  active: boolean;
  deactivatedAt: string | null;
  livemode: boolean;
  created: number;
}

type WithObject<D> = D & { object: PaymentLinkObject };

export type PaymentLinkEvent =
  | DomainEvent<'payment_link.created', WithObject<PaymentLinkCreated>>
  | DomainEvent<'payment_link.deactivated', WithObject<{ at: string }>>
  /** A checkout session of a single-use link takes it for a payment attempt (internal: the link's lock). */
  | DomainEvent<'payment_link.claimed', { sessionId: string; at: string }>;

export const paymentLinkStream = (id: string) => `payment_link-${id}`;
