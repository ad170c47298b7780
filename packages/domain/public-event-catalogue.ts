import { customerPublicEvents } from './customer/public-events.js';
import { escrowContractPublicEvents } from './escrow/public-events.js';
import { fundingCampaignPublicEvents } from './funding-campaign/public-events.js';
import { invoicePublicEvents } from './invoice/public-events.js';
import { marketplaceOrderPublicEvents } from './marketplace-order/public-events.js';
import { paymentIntentPublicEvents } from './payment-intent/public-events.js';
import { payoutBatchPublicEvents } from './payout-batch/public-events.js';
import { payoutPublicEvents } from './payout/public-events.js';
import { productPublicEvents } from './product/public-events.js';
import type { PublicEvents } from './public-events.js';
import { refundPublicEvents } from './refund/public-events.js';
import { subscriptionPublicEvents } from './subscription/public-events.js';

/**
 * The families' public events, in the order of the catalogue (docs/events.md): the event types
 * merchants subscribe to and the test events' examples are both assembled from this one list.
 */
export const PUBLIC_EVENT_FAMILIES: readonly PublicEvents[] = [
  paymentIntentPublicEvents,
  payoutPublicEvents,
  payoutBatchPublicEvents,
  customerPublicEvents,
  productPublicEvents,
  subscriptionPublicEvents,
  invoicePublicEvents,
  refundPublicEvents,
  marketplaceOrderPublicEvents,
  escrowContractPublicEvents,
  fundingCampaignPublicEvents,
];
