import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

export const PAYMENT_METHOD_TYPES = ['mobile_money', 'card', 'bank'] as const;
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];
export type CapabilityStatus = 'active' | 'suspended';

/** What a capability is about: a payment method in a country and currency, optionally one operator. */
export interface CapabilityScope {
  country: string;
  currency: string;
  paymentMethodType: PaymentMethodType;
  /** Mobile money only; null covers every operator of the country. */
  operator: string | null;
}

/** The public PaymentCapability, in the interface's snake_case. */
export interface PaymentCapabilityObject {
  id: string;
  object: 'payment_capability';
  country: string;
  currency: string;
  payment_method_type: PaymentMethodType;
  operator: string | null;
  is_enabled: boolean;
  status: CapabilityStatus;
  suspension_reason: string | null;
  created: number;
  updated: number;
  livemode: boolean;
}

export interface CapabilityCreated extends CapabilityScope {
  id: string;
  merchantId: string;
  environment: Environment;
  isEnabled: boolean;
  createdAt: string;
}

type WithObject<D> = D & { object: PaymentCapabilityObject };

export type PaymentCapabilityEvent =
  | DomainEvent<'payment_capability.created', WithObject<CapabilityCreated>>
  | DomainEvent<'payment_capability.updated', WithObject<{ isEnabled: boolean; at: string }>>
  | DomainEvent<'payment_capability.suspended', WithObject<{ reason: string; at: string }>>
  | DomainEvent<'payment_capability.resumed', WithObject<{ at: string }>>
  | DomainEvent<'payment_capability.deleted', WithObject<{ at: string }>>;

export const paymentCapabilityStream = (id: string) => `payment_capability-${id}`;
