import { adminKeysProjection } from './admin-keys.js';
import { assetsProjection } from './assets.js';
import { intelligenceDecisionsProjection } from './intelligence-decisions.js';
import { intelligencePaymentsProjection } from './intelligence-payments.js';
import { apiKeysProjection } from './api-keys.js';
import { balanceTransactionsProjection } from './balance-transactions.js';
import { balancesProjection } from './balances.js';
import { checkoutSessionsProjection } from './checkout-sessions.js';
import { customerPortalSessionsProjection } from './customer-portal-sessions.js';
import { countryActivationsProjection } from './country-activations.js';
import { customersProjection } from './customers.js';
import { featureFlagsProjection } from './feature-flags.js';
import { fundingCampaignsProjection } from './funding-campaigns.js';
import { invoicesProjection } from './invoices.js';
import { ledgerEntriesProjection } from './ledger-entries.js';
import { merchantsProjection } from './merchants.js';
import { operationsProjection } from './operations.js';
import { organizationInvitationsProjection } from './organization-invitations.js';
import { organizationsProjection } from './organizations.js';
import { paymentCapabilitiesProjection } from './payment-capabilities.js';
import { objectEventsProjection } from './object-events.js';
import { paymentIntentHistory, paymentIntentsProjection } from './payment-intents.js';
import { paymentLinksProjection } from './payment-links.js';
import { payoutBatchItemsProjection } from './payout-batch-items.js';
import { payoutBatchLogsProjection } from './payout-batch-logs.js';
import { payoutBatchesProjection } from './payout-batches.js';
import { payoutMethodsProjection } from './payout-methods.js';
import { payoutRecipientsProjection } from './payout-recipients.js';
import { payoutSettingsProjection } from './payout-settings.js';
import { customerPortalSettingsProjection } from './customer-portal-settings.js';
import { payoutHistory, payoutsProjection } from './payouts.js';
import { productsProjection } from './products.js';
import { refundsProjection } from './refunds.js';
import { subscriptionsProjection } from './subscriptions.js';
import { usageRecordsProjection } from './usage-records.js';
import { commissionRulesProjection } from './commission-rules.js';
import { marketplaceFundsProjection } from './marketplace-funds.js';
import { marketplaceOrdersProjection } from './marketplace-orders.js';
import { marketplacePayoutsProjection } from './marketplace-payouts.js';
import { marketplaceRefundsProjection } from './marketplace-refunds.js';
import { marketplaceSellersProjection } from './marketplace-sellers.js';
import { userPasskeysProjection } from './user-passkeys.js';
import { userSecurityEventsProjection } from './user-security-events.js';
import { userSessionsProjection } from './user-sessions.js';
import { usersProjection } from './users.js';
import { webhookEndpointsProjection } from './webhook-endpoints.js';
import { escrowContractsProjection } from './escrow-contracts.js';
import { escrowDisputesProjection } from './escrow-disputes.js';
import { escrowReleasesProjection } from './escrow-releases.js';
import { templatesProjection } from './templates.js';
import { automationsProjection } from './automations.js';
import type { Projection } from './projection.js';

/** Every read model the service keeps, in the order they are migrated. */
export const ALL_PROJECTIONS: readonly Projection[] = [
  merchantsProjection,
  apiKeysProjection,
  balancesProjection,
  balanceTransactionsProjection,
  customersProjection,
  paymentIntentsProjection,
  objectEventsProjection([paymentIntentHistory, payoutHistory]),
  operationsProjection,
  payoutSettingsProjection,
  customerPortalSettingsProjection,
  payoutMethodsProjection,
  payoutsProjection,
  webhookEndpointsProjection,
  // The payout engine
  payoutRecipientsProjection,
  payoutBatchesProjection,
  payoutBatchItemsProjection,
  payoutBatchLogsProjection,
  // What each merchant may use
  paymentCapabilitiesProjection,
  countryActivationsProjection,
  // Platform settings
  adminKeysProjection,
  featureFlagsProjection,
  // Merchant billing
  productsProjection,
  subscriptionsProjection,
  invoicesProjection,
  refundsProjection,
  usageRecordsProjection,
  // Dashboard accounts
  usersProjection,
  userSessionsProjection,
  userPasskeysProjection,
  userSecurityEventsProjection,
  organizationsProjection,
  organizationInvitationsProjection,
  // Checkout sessions, payment links, the customer portal
  paymentLinksProjection,
  checkoutSessionsProjection,
  customerPortalSessionsProjection,
  // Audit and reconciliation
  ledgerEntriesProjection,
  // The marketplace (docs/marketplace.md)
  commissionRulesProjection,
  marketplaceSellersProjection,
  marketplaceOrdersProjection,
  marketplaceRefundsProjection,
  marketplaceFundsProjection,
  marketplacePayoutsProjection,
  // Merchants' files
  assetsProjection,
  // Intelligence: KPIs, lifecycle and decisions
  intelligencePaymentsProjection,
  intelligenceDecisionsProjection,
  // Escrow
  escrowContractsProjection,
  escrowReleasesProjection,
  escrowDisputesProjection,
  // Funding campaigns
  fundingCampaignsProjection,
  // The template engine
  templatesProjection,
  // Automations
  automationsProjection,
];

/** Applied in each append's transaction by the Postgres store: a client reads what it wrote. */
export const INLINE_PROJECTIONS = ALL_PROJECTIONS.filter((p) => !p.followsLog);
/** Applied by a consumer that follows the log (with the Postgres store; with EventStoreDB every projection does). */
export const FOLLOWING_PROJECTIONS = ALL_PROJECTIONS.filter((p) => p.followsLog);
