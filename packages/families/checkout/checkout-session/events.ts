import type { DomainEvent } from '#packages/core/decider.js';
import type { CheckoutMethodType, FeeMode } from './amount.js';
import type { Environment } from '#packages/core/owner.js';

export interface CheckoutSessionCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  /** What the merchant asks for; the customer pays more when `feeMode` is `customer`. */
  amount: number;
  currency: string;
  country: string;
  description: string | null;
  paymentMethodTypes: CheckoutMethodType[];
  successUrl: string | null;
  cancelUrl: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  paymentLinkId: string | null;
  feeMode: FeeMode;
  deferPaymentIntentCreation: boolean;
  metadata: Record<string, unknown>;
  /** `{PUBLIC_URL}/checkout/session/{id}`, the hosted page. */
  url: string;
  expiresAt: string;
  createdAt: string;
}

export type CheckoutSessionStatus = 'open' | 'complete' | 'canceled' | 'expired';
export type CheckoutPaymentStatus = 'unpaid' | 'processing' | 'paid' | 'failed';

/** The checkout session as the API returns it (camelCase, like the family's request bodies). */
export interface CheckoutSessionObject {
  id: string;
  object: 'checkout.session';
  url: string;
  status: CheckoutSessionStatus;
  paymentStatus: CheckoutPaymentStatus;
  amount: number;
  /** What the customer pays (amount + fee when the customer carries it); null until known (fee mode customer, no method chosen yet). */
  amountTotal: number | null;
  currency: string;
  country: string;
  description: string | null;
  paymentMethodTypes: CheckoutMethodType[];
  successUrl: string | null;
  cancelUrl: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  paymentLinkId: string | null;
  feeMode: FeeMode;
  deferPaymentIntentCreation: boolean;
  paymentIntentId: string | null;
  metadata: Record<string, unknown>;
  expiresAt: string;
  livemode: boolean;
  created: number;
}

export type CheckoutSessionEvent =
  | DomainEvent<'checkout_session.created', CheckoutSessionCreated>
  /** A payment attempt: the payment intent that collects it (a failed attempt is followed by a new intent). */
  | DomainEvent<'checkout_session.payment_intent_attached', { paymentIntentId: string; attempt: number; amount: number; at: string }>
  | DomainEvent<'checkout_session.canceled', { at: string }>
  /** The merchant expired the session before its time (POST …/expire): `at` becomes its expiresAt. */
  | DomainEvent<'checkout_session.expired', { at: string }>;

export const checkoutSessionStream = (id: string) => `checkout_session-${id}`;
