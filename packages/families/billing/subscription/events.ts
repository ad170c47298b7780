import type { DomainEvent } from '#packages/core/decider.js';
import type { InvoiceLine } from '../invoice/events.js';
import type { Interval, UsageType } from '../product/events.js';
import type { Environment } from '#packages/core/owner.js';

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'canceled';
export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due', 'canceled'];

/** An item as the subscription keeps it: the price's terms are copied at creation, since prices never change. */
export interface SubscriptionItem {
  id: string;
  price: string;
  product: string;
  /** The product's name when subscribed, which the invoices' lines show; absent on subscriptions made before it was kept. */
  product_name?: string;
  quantity: number;
  unit_amount: number;
  usage_type: UsageType;
}

/** The invoice a period produces; its id is fixed here so that issuing it is idempotent. */
export interface PeriodInvoice {
  id: string;
  periodStart: string;
  periodEnd: string;
  lines: InvoiceLine[];
  amountDue: number;
  dueAt: string;
}

export interface UsageRecord {
  id: string;
  subscriptionId: string;
  meterKey: string;
  quantity: number;
  occurredAt: string;
  externalId: string | null;
  idempotencyKey: string | null;
  createdAt: string;
}

/** The Subscription as the merchant routes return it (snake_case); the billing family renders the same record in camelCase. */
export interface SubscriptionObject {
  id: string;
  object: 'subscription';
  customer: string;
  status: SubscriptionStatus;
  items: { id: string; price: string; quantity: number }[];
  current_period_start: number;
  current_period_end: number;
  currency: string;
  cancel_at_period_end: boolean;
  canceled_at: number | null;
  trial_end: number | null;
  latest_invoice: string | null;
  billing_plan: string | null;
  days_until_due: number;
  metadata: Record<string, string>;
  created: number;
  livemode: boolean;
}

export interface SubscriptionCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  customer: string;
  currency: string;
  interval: Interval;
  intervalCount: number;
  items: SubscriptionItem[];
  billingPlanId: string | null;
  metadata: Record<string, string>;
  daysUntilDue: number;
  cancelAtPeriodEnd: boolean;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /**
   * Periods are counted from this date so that they never drift: the period after n renewals ends
   * at anchor + (intervalsToFirstEnd + n) intervals, clamped to the month's length (a subscription
   * started on 31 January renews on 28 February, 31 March, 30 April).
   */
  billingCycleAnchor: string;
  /** 1 when the anchor is the first period's start; 0 when it is its end (a trial, or a first period given explicitly). */
  intervalsToFirstEnd: number;
  trialEnd: string | null;
  /** The first period's invoice; null while trialing. */
  invoice: PeriodInvoice | null;
  createdAt: string;
}

type WithObject<D> = D & { object: SubscriptionObject };

export type SubscriptionEvent =
  | DomainEvent<'subscription.created', WithObject<SubscriptionCreated>>
  // A new period: licensed items billed in advance for it, metered usage of the period that ended in arrears.
  | DomainEvent<'subscription.renewed', WithObject<{ periodStart: string; periodEnd: string; invoice: PeriodInvoice; at: string }>>
  | DomainEvent<'subscription.updated', WithObject<{ status?: SubscriptionStatus; cancelAtPeriodEnd?: boolean; overdueInvoice?: string; settledInvoice?: string; at: string }>>
  // Usage not yet invoiced is billed on a last invoice.
  | DomainEvent<'subscription.canceled', WithObject<{ invoice: PeriodInvoice | null; at: string }>>
  // Internal: metered usage (billing usage records); lands on the next invoice.
  | DomainEvent<'subscription.usage_recorded', { record: UsageRecord }>;

export const subscriptionStream = (id: string) => `subscription-${id}`;
