import type { DashboardFamily } from '../../shell/family.js';
import { Checkout } from './Checkout.js';
import { CheckoutSession } from './CheckoutSession.js';
import { PaymentLinks } from './PaymentLinks.js';

/** Checkout: payment links, checkout sessions and a session's page. */
export const checkout: DashboardFamily = {
  pages: { paymentLinks: PaymentLinks, checkout: Checkout, checkoutSession: CheckoutSession },
  navigation: [
    { group: 'money', page: 'paymentLinks', label: 'nav.paymentLinks' },
    { group: 'money', page: 'checkout', label: 'nav.checkout', under: ['checkoutSession'] },
  ],
};
