import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** A payout destination as stored and returned: mobile money (E.164 MSISDN) or a bank account. */
export type Destination = { type: 'mobile_money'; currency: string; country: string; operator: string; msisdn: string } | { type: 'bank'; currency: string; bank_code: string; account_number: string; account_name: string };

export interface PayoutMethodCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  destination: Destination;
  /** When the safety delay ends and the destination may receive payouts. */
  usableFrom: string;
  createdAt: string;
}

export type PayoutMethodEvent = DomainEvent<'payout_method.created', PayoutMethodCreated> | DomainEvent<'payout_method.deactivated', { id: string; deactivatedAt: string }>;

export const payoutMethodStream = (id: string) => `payout_method-${id}`;
