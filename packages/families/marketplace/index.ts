import { sellerPayoutFunding } from './marketplace-seller/payout-funding.js';
import { ledger } from '#packages/families/ledger/index.js';
import { CommissionRules } from './commission-rule/commands.js';
import { MarketplaceOrders } from './marketplace-order/commands.js';
import { marketplaceOrderPublicEvents } from './marketplace-order/public-events.js';
import { MarketplaceSellers } from './marketplace-seller/commands.js';
import { SellerPayouts } from './marketplace-seller/payouts.js';
// Part 2 debt: the family reads its own read side directly until its read API is its manifest's.
import { dueSellerShares } from './read/marketplace-funds.js';
import { marketplaceOrders, sellerPayoutHoldKind } from './marketplace-order/postings.js';
import { defineFamily } from '#packages/families/family.js';
import type { Marketplace } from './marketplace.js';
import { marketplaceReadSide } from './read/index.js';
import { payments } from '#packages/families/payments/index.js';
import { payouts } from '#packages/families/payouts/index.js';
import { marketplaceErrors } from './errors.js';

/** The marketplace: commission rules, sellers, orders, refunds and settlements (docs/marketplace.md). */
export const marketplace = defineFamily({
  name: 'marketplace',
  readSide: marketplaceReadSide,
  needs: [payments, payouts, ledger],
  ledger: { holds: [sellerPayoutHoldKind], reducers: [marketplaceOrders] },
  errors: marketplaceErrors,
  accounts: {
    seller_pending: { owner: 'sellers', mayGoNegative: false, shownAs: 'seller_funds.pending, held (seller)', holds: "a marketplace seller's shares not yet settled (seller_pending:<seller>)" },
    seller_available: { owner: 'sellers', mayGoNegative: false, shownAs: 'seller_funds.available, held (seller)', holds: "a marketplace seller's settled funds (seller_available:<seller>)" },
    seller_payouts: { owner: 'sellers', mayGoNegative: false, shownAs: 'held (seller_payouts)', holds: 'holds of payouts to sellers in flight, amount + fee' },
    commission: { owner: 'merchant', mayGoNegative: true, shownAs: 'GET /api/v1/marketplace/balance', holds: "the marketplace's commission, less the processing fees it pays (may go below zero)" },
  },
  publicEvents: [marketplaceOrderPublicEvents],
  build: ({ store, ledger, clock, knex }, { paymentIntents, payouts }) => {
    const commissionRules = new CommissionRules({ store, clock });
    const sellers = new MarketplaceSellers({ store, clock });
    const marketplace: Marketplace = {
      commissionRules,
      sellers,
      orders: new MarketplaceOrders({
        store,
        ledger,
        clock,
        paymentIntents,
        sellers,
        commissionRules,
        dueShares: { dueShares: (owner, currency, at, limit) => dueSellerShares(knex, owner, currency, at, limit) },
      }),
      payouts: new SellerPayouts({ payouts, sellers }),
    };
    return { marketplace };
  },
  // Orders split their payments.
  registrations: ({ marketplace }) => ({ paymentRecipients: [marketplace.orders.paymentRecipient], payoutFundingSources: [sellerPayoutFunding] }),
});
export type { Marketplace } from './marketplace.js';
