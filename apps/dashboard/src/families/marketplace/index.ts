import type { DashboardFamily } from '../../shell/family.js';
import { Marketplace } from './Marketplace.js';
import { MarketplaceOrder } from './MarketplaceOrder.js';
import { MarketplaceSeller } from './MarketplaceSeller.js';

/** The marketplace: sellers and orders, and a page for each. */
export const marketplace: DashboardFamily = {
  pages: { marketplace: Marketplace, marketplaceOrder: MarketplaceOrder, marketplaceSeller: MarketplaceSeller },
  navigation: [{ group: 'money', page: 'marketplace', label: 'nav.marketplace', under: ['marketplaceOrder', 'marketplaceSeller'] }],
};
