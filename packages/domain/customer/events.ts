import type { DomainEvent } from '../decider.js';
import type { Environment } from '../merchant/events.js';

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

export type CustomerEvent = DomainEvent<'customer.created', CustomerCreated>;

export const customerStream = (id: string) => `customer-${id}`;
