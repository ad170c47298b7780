import type { CommissionRules } from './commission-rule/commands.js';
import type { MarketplaceOrders } from './marketplace-order/commands.js';
import type { MarketplaceSellers } from './marketplace-seller/commands.js';
import type { SellerPayouts } from './marketplace-seller/payouts.js';

/** The marketplace's command services (docs/marketplace.md). */
export interface Marketplace {
  commissionRules: CommissionRules;
  sellers: MarketplaceSellers;
  orders: MarketplaceOrders;
  payouts: SellerPayouts;
}
