import { ApiError } from '#packages/core/errors.js';
import type { CustomerRef } from '../customer/commands.js';
import type { RouteAuth } from '#packages/http/routes.js';

export const billingRead: RouteAuth = { scope: 'billing.read', environmentHeader: 'optional' };

export const billingWrite: RouteAuth = { scope: 'billing.write', environmentHeader: 'optional' };

/** How merchant billing bodies name a customer: `customer` (id), or `customer_email` (found or created) with an optional `customer_name`. */
export const customerFields = {
  customer: { type: 'string', minLength: 1, maxLength: 255 },
  customer_email: { type: 'string', format: 'email', maxLength: 254 },
  customer_name: { type: 'string', minLength: 1, maxLength: 250 },
};

export interface CustomerFields {
  customer?: string;
  customer_email?: string;
  customer_name?: string;
}

export function customerRef(body: CustomerFields): CustomerRef {
  if (body.customer !== undefined && body.customer_email !== undefined) {
    throw new ApiError('IKW-VAL-002', 'Give customer or customer_email, not both', 'customer_email');
  }
  if (body.customer === undefined && body.customer_email === undefined) throw new ApiError('IKW-VAL-001', 'Missing required parameter: customer', 'customer');
  return {
    ...(body.customer !== undefined ? { id: body.customer } : {}),
    ...(body.customer_email !== undefined ? { email: body.customer_email } : {}),
    ...(body.customer_name !== undefined ? { name: body.customer_name } : {}),
  };
}

/** Prices with quantities, of merchant subscriptions and invoices. */
export const itemsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  items: {
    type: 'object',
    required: ['price'],
    additionalProperties: false,
    properties: { price: { type: 'string', minLength: 1, maxLength: 255 }, quantity: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
  },
};

export const toItems = (items: { price: string; quantity?: number }[]) => items.map((i) => ({ price: i.price, quantity: i.quantity ?? 1 }));
