import type { ActivationGate } from '#packages/families/platform/country-activation/commands.js';
import type { CapabilityGate } from '#packages/families/platform/payment-capability/commands.js';
import type { LimitsGate } from '#packages/families/risk/limits/commands.js';
import type { Role } from '#packages/families/accounts/organization/events.js';
import type { PaymentIntentObject } from '#packages/families/payments/payment-intent/events.js';
import type { Destination } from '#packages/families/payouts/payout-method/events.js';
import type { Price, ProductStatus } from '#packages/families/billing/product/events.js';
import type { Environment, Owner } from '#packages/core/owner.js';
import type { PayoutSettings } from '#packages/families/merchants/merchant-settings/events.js';

/**
 * What commands read from the read models. The domain declares these small ports and
 * packages/families/read-port-adapters.ts implements them over the `read` tables (a family's own, its manifest: packages/families); the kernel and the manifests wire them.
 * Every lookup is scoped to one owner: another merchant's object is simply not found.
 */
export interface CustomerDirectory {
  /** The customer with this id, if it is this owner's. */
  findCustomer(owner: Owner, id: string): Promise<{ id: string; name: string | null; email: string | null } | undefined>;
}

/** A price with the status of the product it belongs to. */
export interface PriceWithProduct {
  id: string;
  product_id: string;
  price: Price;
  product_status: ProductStatus;
  product_name: string;
}

export interface PriceCatalog {
  /** This owner's prices among `ids`, by id (unknown ids are absent). */
  findPrices(owner: Owner, ids: readonly string[]): Promise<Map<string, PriceWithProduct>>;
}

export interface PaymentIntentReader {
  /** A payment intent as its read model shows it, if it is this owner's. */
  findPaymentIntent(owner: Owner, id: string): Promise<PaymentIntentObject | undefined>;
}

/** A user's membership of one organization, as account commands need it. */
export interface Membership {
  organizationId: string;
  role: Role;
  /** Its merchants, oldest first: a session in the organization acts for one of them. */
  merchantIds: string[];
  /** The organization's owners must keep a second factor. */
  requireMfa: boolean;
}

export interface AccountDirectory {
  /** The organizations a user belongs to, oldest membership first. */
  memberships(userId: string): Promise<Membership[]>;
  /**
   * The role a session's user holds now in `organizationId`, if the session can still act (not
   * revoked, not expired at `at`) and the user still belongs there; else null.
   */
  sessionRole(sessionId: string, organizationId: string, at: Date): Promise<Role | null>;
  /** The organization holding a merchant, if any. */
  organizationOfMerchant(merchantId: string): Promise<string | undefined>;
  /** The members of the organization holding a merchant (none without one), with their address and role. */
  merchantMembers(merchantId: string): Promise<{ userId: string; email: string; role: Role }[]>;
}

/** What payouts read of the merchant's earlier payouts. */
export interface PayoutHistory {
  /** Whether this owner has a payout pending, in transit or paid to this destination (docs/decisions.md, "Payouts"). */
  hasPaidTo(owner: Owner, destination: Destination): Promise<boolean>;
  /** Of these destinations, those this owner never paid so. */
  neverPaid(owner: Owner, destinations: readonly Destination[]): Promise<Destination[]>;
}

export type ReadPorts = CustomerDirectory & PriceCatalog & PaymentIntentReader & AccountDirectory & CapabilityGate & ActivationGate & LimitsGate;

/** A seller's share of a paid order whose settlement is due (docs/marketplace.md). */
export interface DueShare {
  orderId: string;
  sellerRef: string;
  currency: string;
}

export interface MarketplaceDueShares {
  /**
   * Up to `limit` shares of this owner (in `currency`, when given) still pending and due at `at` by
   * their seller's settlement mode and delay, oldest payment first.
   */
  dueShares(owner: Owner, currency: string | undefined, at: Date, limit: number): Promise<DueShare[]>;
}

/** What escrow commands read: which contract a release or dispute belongs to, and which one a payment intent funds. */
export interface EscrowDirectory {
  contractOfRelease(owner: Owner, releaseId: string): Promise<string | undefined>;
  contractOfDispute(owner: Owner, disputeId: string): Promise<string | undefined>;
  /** The contract this payment intent was submitted to fund, if any: its payment is posted to that contract's escrow. */
  escrowContractFundedBy(owner: Owner, paymentIntentId: string): Promise<string | undefined>;
}

/** The merchants' payout settings as hot paths read them (packages/families/read-port-adapters.ts remembers them per merchant). */
export interface PayoutSettingsReader {
  payoutSettings(merchantId: string, environment: Environment): Promise<PayoutSettings>;
}
