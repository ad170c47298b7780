import { testId, statusFor, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { OrderObject } from './events.js';

/** Marketplace orders' public events (docs/marketplace.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const marketplaceOrderPublicEvents: PublicEvents = {
  types: [
    { type: 'marketplace_order.created', emittedBy: 'POST /api/v1/marketplace/orders', data: 'the marketplace Order (status requires_payment)' },
    { type: 'marketplace_order.paid', emittedBy: "the order's payment intent succeeding; the order is split among its sellers and the commission", data: 'the marketplace Order (status paid)' },
    { type: 'marketplace_order.refunded', emittedBy: 'POST /api/v1/marketplace/refunds', data: 'the marketplace Order (refundedMinor after the refund)' },
    { type: 'marketplace_order.canceled', emittedBy: 'POST /api/v1/marketplace/orders/{id}/cancel', data: 'the marketplace Order (status canceled)' },
  ],
  example: marketplaceOrder,
};

function marketplaceOrder(type: string, created: number, livemode: boolean): OrderObject {
  const status = statusFor(type, { created: 'requires_payment', paid: 'paid', refunded: 'refunded', canceled: 'canceled' });
  const seller = testId('acct');
  const paid = status === 'paid' || status === 'refunded';
  return {
    id: testId('mo'),
    object: 'marketplace_order',
    status,
    currency: CURRENCY,
    transactionCountry: 'SN',
    amountMinor: 15000,
    commissionMinor: 1500,
    processingFeeMinor: paid ? 300 : null,
    refundedMinor: status === 'refunded' ? 15000 : 0,
    idempotencyKey: null,
    buyerName: 'Awa Diop',
    buyerEmail: 'awa.diop@example.com',
    paymentIntentId: testId('pi'),
    lines: [{ sellerId: seller, description: 'Handmade basket', amountMinor: 15000, commissionRuleId: null, commissionMinor: 1500 }],
    sellerShares: [{ sellerId: seller, amountMinor: 13500 }],
    paidAt: paid ? created : null,
    canceledAt: status === 'canceled' ? created : null,
    livemode,
    created,
  };
}
