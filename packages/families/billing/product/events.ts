import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

export type Interval = 'day' | 'week' | 'month' | 'year';
export const INTERVALS: readonly Interval[] = ['day', 'week', 'month', 'year'];

/** `licensed`: quantity × unit_amount, billed in advance; `metered`: reported usage × unit_amount, billed in arrears. */
export type UsageType = 'licensed' | 'metered';

export interface Recurring {
  interval: Interval;
  interval_count: number;
  usage_type: UsageType;
}

/** A price of a product. Prices never change once created (subscriptions and invoices refer to them). */
export interface Price {
  id: string;
  object: 'price';
  product: string;
  currency: string;
  unit_amount: number;
  recurring: Recurring | null;
  created: number;
}

export type ProductStatus = 'active' | 'inactive' | 'archived';

/** The Product as the API returns it. */
export interface ProductObject {
  id: string;
  object: 'product';
  name: string;
  description: string | null;
  active: boolean;
  status: ProductStatus;
  prices: Price[];
  metadata: Record<string, string>;
  created: number;
  updated: number;
  livemode: boolean;
}

export interface ProductCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  name: string;
  description: string | null;
  active: boolean;
  prices: Price[];
  metadata: Record<string, string>;
  createdAt: string;
}

export interface ProductChanges {
  name?: string;
  description?: string | null;
  /** Merged into the metadata; a key set to "" is removed. */
  metadata?: Record<string, string>;
  active?: boolean;
  addedPrices?: Price[];
}

type WithObject<D> = D & { object: ProductObject };

export type ProductEvent =
  | DomainEvent<'product.created', WithObject<ProductCreated>>
  | DomainEvent<'product.updated', WithObject<ProductChanges & { at: string }>>
  // Archived, never erased: invoices and history still name it.
  | DomainEvent<'product.deleted', WithObject<{ at: string }>>
  // Internal: which subscriptions use the product, so that delete can refuse on this stream alone.
  | DomainEvent<'product.subscription_attached', { subscriptionId: string; at: string }>
  | DomainEvent<'product.subscription_detached', { subscriptionId: string; at: string }>;

export const productStream = (id: string) => `product-${id}`;
