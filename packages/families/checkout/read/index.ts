import type { ReadSide } from '#packages/read-models/read-side.js';
import { paymentLinksProjection } from './payment-links.js';
import { checkoutSessionsProjection } from './checkout-sessions.js';

/** Hosted checkout: payment links and checkout sessions. */
export const checkoutReadSide: ReadSide = {
  family: 'checkout',
  readModels: [paymentLinksProjection, checkoutSessionsProjection],
};

// The queries other code reads this family by.
export { findPaymentLink, findPaymentLinkBySlug, listPaymentLinks } from './payment-links.js';
export { type CheckoutSessionView, findCheckoutSession, findPublicCheckoutSession, listCheckoutSessions } from './checkout-sessions.js';
