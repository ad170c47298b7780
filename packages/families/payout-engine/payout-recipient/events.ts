import type { DomainEvent } from '#packages/core/decider.js';
import type { Destination } from '#packages/families/payouts/index.js';
import type { Environment } from '#packages/core/owner.js';

export type RecipientStatus = 'active' | 'archived';

/** A saved beneficiary of the payout engine, in the interface's snake_case fields (destination flattened). */
export interface RecipientObject {
  id: string;
  object: 'payout_recipient';
  display_name: string;
  destination_type: Destination['type'];
  currency: string;
  country: string | null;
  operator: string | null;
  msisdn: string | null;
  bank_code: string | null;
  account_number: string | null;
  account_name: string | null;
  status: RecipientStatus;
  created: number;
  updated: number;
  livemode: boolean;
}

export interface RecipientCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  displayName: string;
  destination: Destination;
  createdAt: string;
}

type WithObject<D> = D & { object: RecipientObject };

export type RecipientEvent =
  | DomainEvent<'payout_recipient.created', WithObject<RecipientCreated>>
  | DomainEvent<'payout_recipient.updated', WithObject<{ displayName: string; destination: Destination; at: string }>>
  | DomainEvent<'payout_recipient.archived', WithObject<{ at: string }>>;

export const recipientStream = (id: string) => `payout_recipient-${id}`;
