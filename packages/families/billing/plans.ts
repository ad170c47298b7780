import type { CreateProductInput } from './product/commands.js';
import type { Interval, Price, ProductObject } from './product/events.js';
import { Refusal } from '#packages/core/refusal.js';

/**
 * Billing plans, the /api/v1/billing family's catalogue (docs/billing.md). A plan is not an aggregate
 * of its own: it is a product with one licensed recurring price, and a metered price when it is
 * usage-based; the plan's id is that licensed price's id.
 */

/** Where a plan's free-text metadata is kept among its product's metadata. */
export const PLAN_METADATA_KEY = 'billing_plan_metadata';

/** The interval spellings a plan accepts, to the price's interval. */
export const PLAN_INTERVALS: Readonly<Record<string, Interval>> = {
  day: 'day',
  daily: 'day',
  week: 'week',
  weekly: 'week',
  month: 'month',
  monthly: 'month',
  year: 'year',
  yearly: 'year',
  annual: 'year',
  annually: 'year',
};

export interface NewPlan {
  name: string;
  currency: string;
  recurringAmount: number;
  /** One of the keys of PLAN_INTERVALS. */
  interval: string;
  usageBasedEnabled?: boolean | null;
  metadata?: string | null;
  /** Sika extension: the price of one unit of metered usage (default 0). */
  usageUnitAmount?: number | null;
}

/** The product that holds a new plan: its licensed price first, then the metered one of a usage-based plan. */
export function planProduct(plan: NewPlan): CreateProductInput {
  const interval = PLAN_INTERVALS[plan.interval]!;
  return {
    name: plan.name,
    metadata: plan.metadata ? { [PLAN_METADATA_KEY]: plan.metadata } : {},
    prices: [
      { currency: plan.currency, unit_amount: plan.recurringAmount, recurring: { interval, interval_count: 1, usage_type: 'licensed' } },
      ...(plan.usageBasedEnabled ? [{ currency: plan.currency, unit_amount: plan.usageUnitAmount ?? 0, recurring: { interval, interval_count: 1, usage_type: 'metered' as const } }] : []),
    ],
  };
}

/** A plan as the billing family shows it: its product, seen through the plan's price. */
export function planObject(product: ProductObject, planPrice: Price) {
  const metered = product.prices.find((p) => p.recurring?.usage_type === 'metered');
  return {
    id: planPrice.id,
    object: 'billing_plan',
    productId: product.id,
    name: product.name,
    currency: planPrice.currency,
    recurringAmount: planPrice.unit_amount,
    interval: planPrice.recurring!.interval,
    intervalCount: planPrice.recurring!.interval_count,
    usageBasedEnabled: metered !== undefined,
    usageUnitAmount: metered?.unit_amount ?? null,
    metadata: product.metadata[PLAN_METADATA_KEY] ?? null,
    active: product.active,
    created: product.created,
    livemode: product.livemode,
  };
}

/**
 * The items of a subscription to a plan: the plan's price, then the metered prices of its product
 * that recur on the same interval (usage is billed with the plan). `planPrice` and `productPrices`
 * are undefined when the caller has no such plan.
 */
export function planItems(planId: string, planPrice: Price | undefined, productPrices: readonly Price[] | undefined): { price: string; quantity: number }[] {
  if (!planPrice || !productPrices) throw new Refusal('IKW-BIL-007', `No such billing plan: '${planId}'`, 'billingPlanId');
  const recurring = planPrice.recurring;
  if (!recurring) throw new Refusal('IKW-BIL-008', `Price ${planId} is not recurring`, 'billingPlanId');
  const metered = productPrices.filter((p) => p.recurring?.usage_type === 'metered' && p.recurring.interval === recurring.interval && p.id !== planPrice.id);
  return [planPrice, ...metered].map((p) => ({ price: p.id, quantity: 1 }));
}
