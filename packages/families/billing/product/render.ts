import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { ProductEvent, ProductObject } from './events.js';
import { type ProductCommand, productDecider, type ProductState, productStatus } from './decider.js';

/** The public product: what the API answers and what its events carry (`data.object`). */
export function toProductObject(state: ProductState): ProductObject {
  const p = present(state.product, 'product');
  return {
    id: p.id,
    object: 'product',
    name: state.name,
    description: state.description,
    active: state.active && !state.archived,
    status: productStatus(state),
    prices: state.prices,
    metadata: state.metadata,
    created: unixSeconds(new Date(p.createdAt)),
    updated: unixSeconds(new Date(state.updatedAt ?? p.createdAt)),
    livemode: p.environment === 'live',
  };
}

/** The product aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const productAggregate: Decider<ProductCommand, ProductState, Fact<ProductEvent>> = { ...productDecider, render: { object: toProductObject, internal: ['product.subscription_attached', 'product.subscription_detached'] } };
