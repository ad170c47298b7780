import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { SellerEvent, SellerObject } from './events.js';
import { type SellerCommand, sellerDecider, type SellerState } from './decider.js';

/** The public marketplace seller: what the API answers and what its events carry (`data.object`). */
export function toSellerObject(state: SellerState): SellerObject {
  const s = present(state.seller, 'marketplace seller');
  return {
    id: s.id,
    object: 'marketplace_seller',
    sellerId: s.sellerId,
    displayName: s.displayName,
    settlementMode: s.settlementMode,
    settlementDelayDays: s.settlementDelayDays,
    status: 'active',
    livemode: s.environment === 'live',
    created: unixSeconds(new Date(s.createdAt)),
    updated: unixSeconds(new Date(state.updatedAt ?? s.createdAt)),
  };
}

/** The marketplace seller aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const sellerAggregate: Decider<SellerCommand, SellerState, Fact<SellerEvent>> = { ...sellerDecider, render: { object: toSellerObject } };
