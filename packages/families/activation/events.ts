import type { DomainEvent } from '#packages/core/decider.js';
import type { BusinessType } from '#packages/catalog/index.js';
import type { Destination, SettlementCheck } from '#packages/families/payouts/index.js';

/** Where a merchant's application to take live money stands (docs/merchants.md, "Going live"). */
export type ApplicationStatus = 'not_submitted' | 'under_review' | 'information_requested' | 'active' | 'rejected' | 'suspended';
export const APPLICATION_STATUSES: readonly ApplicationStatus[] = ['not_submitted', 'under_review', 'information_requested', 'active', 'rejected', 'suspended'];

/** What the merchant submits, as its API takes it (snake_case, field paths as `requirements` names them). */
export interface ApplicationDetails {
  business: {
    legal_name: string;
    trading_name: string | null;
    type: BusinessType;
    registration_number: string | null;
    /** ISO 3166-1 alpha-2, upper case. */
    country: string;
    address: { line1: string; line2: string | null; city: string; postal_code: string | null };
    product_description: string;
    website: string | null;
  };
  representative: {
    name: string;
    /** YYYY-MM-DD. */
    date_of_birth: string;
    /** The id of the merchant's `onboarding_document` asset (docs/assets.md): private to the merchant and the platform. */
    identity_document: string;
  };
  /** A company's owners of 25 % or more; empty for an individual. */
  owners: { name: string; date_of_birth: string | null; ownership_percent: number }[];
  /** Where payouts of its balance go: a payout destination, checked as one. */
  settlement_destination: Destination;
  /** Integer minor units of `currency` (lower case) a month. */
  expected_monthly_volume: { amount: number; currency: string };
}

/** The live rail's word on the settlement destination at submission, for the reviewer. */
export type DestinationCheck = SettlementCheck & { checkedAt: string };

/** A field the operator asks the merchant to give again, with why. */
export interface RequestedField {
  field: string;
  message: string;
}

/** One decision of the platform on the application, with its operator (`operator:<id>`). */
export interface Decision {
  decision: 'approved' | 'rejected' | 'information_requested' | 'suspended' | 'reinstated';
  by: string;
  reason: string | null;
  fields: RequestedField[];
  at: string;
}

/** The application as its read model, the merchant's GET and the operator's review show it. */
export interface ApplicationObject {
  object: 'activation_application';
  merchantId: string;
  status: ApplicationStatus;
  details: ApplicationDetails | null;
  destinationCheck: DestinationCheck | null;
  /** How many times the merchant submitted it. */
  submissions: number;
  firstSubmittedAt: string | null;
  submittedAt: string | null;
  decisions: Decision[];
}

type WithObject<D> = D & { object: ApplicationObject };

/**
 * The application's facts, on its own stream per merchant. Approval and reinstatement commit with
 * `merchant.live_activated`, suspension with `merchant.live_deactivated`, on the merchant's stream.
 */
export type ApplicationEvent =
  | DomainEvent<'activation.submitted', WithObject<{ merchantId: string; details: ApplicationDetails; destinationCheck: DestinationCheck; at: string }>>
  | DomainEvent<'activation.approved', WithObject<{ merchantId: string; by: string; at: string }>>
  | DomainEvent<'activation.rejected', WithObject<{ merchantId: string; by: string; reason: string; at: string }>>
  | DomainEvent<'activation.information_requested', WithObject<{ merchantId: string; by: string; fields: RequestedField[]; at: string }>>
  | DomainEvent<'activation.suspended', WithObject<{ merchantId: string; by: string; reason: string; at: string }>>
  | DomainEvent<'activation.reinstated', WithObject<{ merchantId: string; by: string; at: string }>>;

export const activationStream = (merchantId: string) => `activation-${merchantId}`;
