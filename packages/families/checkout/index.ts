import { KeyedHasher } from '../../core/hashing.js';
import { CheckoutSessions } from './checkout-session/commands.js';
import { PaymentLinks } from './payment-link/commands.js';
import { defineFamily } from '../family.js';
import { payments } from '../payments/index.js';
import { checkoutErrors } from './errors.js';

/** Hosted checkout: sessions and the payment links that open them (docs/checkout.md). */
export const checkout = defineFamily({
  name: 'checkout',
  needs: [payments],
  errors: checkoutErrors,
  build: ({ config, store, clock, secretsKey, countPublicPush }, { paymentIntents }) => {
    const paymentLinks = new PaymentLinks({ store, clock, publicUrl: config.publicUrl });
    return {
      checkoutSessions: new CheckoutSessions({ store, clock, publicUrl: config.publicUrl, paymentIntents, paymentLinks, countPublicPush }),
      /** Marks the browser that paid or canceled a checkout session on its hosted page: only it is sent on to the merchant's URLs. */
      checkoutBrowserMarks: new KeyedHasher(secretsKey, 'sika:checkout-browser:v1'),
      paymentLinks,
    };
  },
});
