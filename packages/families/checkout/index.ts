import { KeyedHasher } from '#packages/core/hashing.js';
import { CheckoutSessionPayments, type CheckoutPayee } from './checkout-session/commands.js';
import { CheckoutSessionOpening } from './checkout-session/opening.js';
import { PaymentLinks } from './payment-link/commands.js';
import { defineFamily } from '#packages/families/family.js';
import { platform } from '#packages/families/platform/index.js';
import { checkoutReadSide } from './read/index.js';
import { payments } from '#packages/families/payments/index.js';
import { checkoutErrors } from './errors.js';

declare module '../family.js' {
  interface Registrations {
    /** What a checkout session may pay besides a plain amount (billing's invoices): asked before each attempt is confirmed. */
    checkoutPayees?: readonly CheckoutPayee[];
  }
}

/** Hosted checkout: sessions and the payment links that open them (docs/checkout.md). */
export const checkout = defineFamily({
  name: 'checkout',
  readSide: checkoutReadSide,
  needs: [payments, platform],
  errors: checkoutErrors,
  build: ({ config, store, clock, secretsKey, countPublicPush, reads }, { paymentIntents }) => {
    const paymentLinks = new PaymentLinks({ store, clock, publicUrl: config.publicUrl, activations: reads });
    // Filled once every family is built (collect, below): the payees' families are built after this one.
    const checkoutPayees: CheckoutPayee[] = [];
    const checkoutSessionPayments = new CheckoutSessionPayments({ store, clock, paymentIntents, paymentLinks, countPublicPush, payees: () => checkoutPayees });
    return {
      checkoutSessionOpening: new CheckoutSessionOpening({ store, clock, publicUrl: config.publicUrl, paymentIntents, paymentLinks, activations: reads, payments: checkoutSessionPayments }),
      checkoutSessionPayments,
      checkoutPayees,
      /** Marks the browser that paid or canceled a checkout session on its hosted page: only it is sent on to the merchant's URLs. */
      checkoutBrowserMarks: new KeyedHasher(secretsKey, 'sika:checkout-browser:v1'),
      paymentLinks,
    };
  },
  collect: ({ checkoutPayees }, registrations) => {
    checkoutPayees.push(...registrations.flatMap((r) => r.checkoutPayees ?? []));
  },
});

export type { CheckoutPayee, CheckoutSessionPayments } from './checkout-session/commands.js';
export type { CheckoutSessionOpening } from './checkout-session/opening.js';
export type { CheckoutSessionObject } from './checkout-session/events.js';
