import { testId, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { ProductObject } from './events.js';

/** Products' public events (docs/billing.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const productPublicEvents: PublicEvents = {
  types: [
    { type: 'product.created', emittedBy: 'POST /api/v1/merchant/products, POST /api/v1/billing/plans', data: 'the Product' },
    { type: 'product.updated', emittedBy: 'PATCH /api/v1/merchant/products/{id}, PATCH …/{id}/active', data: 'the Product' },
    { type: 'product.deleted', emittedBy: 'DELETE /api/v1/merchant/products/{id} (archived)', data: 'the Product (status archived)' },
  ],
  example: product,
};

function product(type: string, created: number, livemode: boolean): ProductObject {
  const id = testId('prod');
  const deleted = type === 'product.deleted';
  return {
    id,
    object: 'product',
    name: 'Premium plan',
    description: 'Monthly subscription',
    active: !deleted,
    status: deleted ? 'archived' : 'active',
    prices: [{ id: testId('price'), object: 'price', product: id, currency: CURRENCY, unit_amount: 10000, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' }, created }],
    metadata: {},
    created,
    updated: created,
    livemode,
  };
}
