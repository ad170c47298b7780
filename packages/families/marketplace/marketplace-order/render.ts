import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import { sellerShares, type OrderEvent, type OrderObject } from './events.js';
import { type OrderCommand, orderDecider, type OrderState } from './decider.js';

/** The public marketplace order: what the API answers and what its events carry (`data.object`). */
export function toOrderObject(state: OrderState): OrderObject {
  const o = present(state.order, 'marketplace order');
  return {
    id: o.id,
    object: 'marketplace_order',
    status: state.status,
    currency: o.currency,
    transactionCountry: o.transactionCountry,
    amountMinor: o.amountMinor,
    commissionMinor: o.commissionMinor,
    processingFeeMinor: state.fee,
    refundedMinor: state.refundedMinor,
    idempotencyKey: o.idempotencyKey,
    buyerName: o.buyerName,
    buyerEmail: o.buyerEmail,
    paymentIntentId: o.paymentIntentId,
    lines: o.lines.map(({ sellerRef: _, ...line }) => line),
    sellerShares: sellerShares(o.lines).map((s) => ({ sellerId: s.sellerId, amountMinor: s.amountMinor })),
    paidAt: state.paidAt ? unixSeconds(new Date(state.paidAt)) : null,
    canceledAt: state.canceledAt ? unixSeconds(new Date(state.canceledAt)) : null,
    livemode: o.environment === 'live',
    created: unixSeconds(new Date(o.createdAt)),
  };
}

/** The marketplace order aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const orderAggregate: Decider<OrderCommand, OrderState, Fact<OrderEvent>> = { ...orderDecider, render: { object: toOrderObject } };
