import type { ReadSide } from '#packages/read-models/read-side.js';
import { commissionRulesProjection } from './commission-rules.js';
import { marketplaceSellersProjection } from './marketplace-sellers.js';
import { marketplaceOrdersProjection } from './marketplace-orders.js';
import { marketplaceRefundsProjection } from './marketplace-refunds.js';
import { marketplaceFundsProjection } from './marketplace-funds.js';
import { marketplacePayoutsProjection } from './marketplace-payouts.js';

/** The marketplace: commission rules, sellers, orders, refunds, funds and seller payouts. */
export const marketplaceReadSide: ReadSide = {
  family: 'marketplace',
  readModels: [commissionRulesProjection, marketplaceSellersProjection, marketplaceOrdersProjection, marketplaceRefundsProjection, marketplaceFundsProjection, marketplacePayoutsProjection],
};

// The queries other code reads this family by.
export { findCommissionRule, listCommissionRules } from './commission-rules.js';
export { findMarketplaceSeller, listMarketplaceSellers } from './marketplace-sellers.js';
export { findMarketplaceOrder, listMarketplaceOrders } from './marketplace-orders.js';
export { findMarketplaceRefund, listMarketplaceRefunds } from './marketplace-refunds.js';
export { dueSellerShares, findMarketplaceSettlement, listMarketplaceSettlements, marketplaceFundsTotals, sellerBalances, sellerFundsAt, toSettlementObject } from './marketplace-funds.js';
export { findMarketplacePayout, listMarketplacePayouts } from './marketplace-payouts.js';
