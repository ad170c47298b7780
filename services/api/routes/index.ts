import { liveActivationRoutes } from '../../../packages/families/merchants/http/live-activation.js';
import { activationRoutes } from '../../../packages/families/activation/http/activation.js';
import { connectorsRoutes } from './connectors.js';
import type { RouteGroup } from '../../../packages/http/routes.js';
import type { System } from '../../system.js';
import { railChoices } from '../../rails.js';
import { assetsRoutes } from '../../../packages/families/assets/http/assets.js';
import { authGoogleRoutes } from '../../../packages/families/accounts/http/auth-google.js';
import { authPasskeysRoutes } from '../../../packages/families/accounts/http/auth-passkeys.js';
import { authSecurityRoutes } from '../../../packages/families/accounts/http/auth-security.js';
import { authSignUpRoutes } from '../../../packages/families/accounts/http/auth-signup.js';
import { authRoutes, SessionCookies } from '../../../packages/families/accounts/http/auth.js';
import { automationsRoutes } from '../../../packages/families/automations/http/automations.js';
import { balanceTransactionsRoutes } from '../../../packages/families/ledger/http/balance-transactions.js';
import { balanceRoutes } from '../../../packages/families/ledger/http/balance.js';
import { billingRoutes } from '../../../packages/families/billing/http/billing.js';
import { checkoutApiRoutes } from '../../../packages/families/checkout/http/checkout-api.js';
import { checkoutPagesRoutes } from '../../../packages/families/checkout/http/checkout-pages.js';
import { checkoutSessionsRoutes } from '../../../packages/families/checkout/http/checkout-sessions.js';
import { configurationRoutes } from '../../../packages/families/platform/http/configuration.js';
import { customerPortalPagesRoutes } from '../../../packages/families/customer-portal/http/customer-portal-pages.js';
import { customerPortalRoutes } from '../../../packages/families/customer-portal/http/customer-portal.js';
import { escrowRoutes } from '../../../packages/families/escrow/http/escrow.js';
import { disputesRoutes } from '../../../packages/families/disputes/http/disputes.js';
import { eventsRoutes } from '../../../packages/families/webhooks/http/events.js';
import { feesRoutes } from './fees.js';
import { fundingPagesRoutes } from '../../../packages/families/funding/http/funding-pages.js';
import { fundingRoutes } from '../../../packages/families/funding/http/funding.js';
import { geographyRoutes } from './geography.js';
import { healthRoutes } from './health.js';
import { contextIntelligenceRoutes, intelligenceRoutes } from '../../../packages/families/intelligence/http/intelligence.js';
import { invitationsRoutes } from '../../../packages/families/accounts/http/invitations.js';
import { marketplaceRoutes } from '../../../packages/families/marketplace/http/marketplace.js';
import { merchantApiKeysRoutes } from '../../../packages/families/merchants/http/merchant-api-keys.js';
import { merchantCustomersRoutes } from '../../../packages/families/billing/http/merchant-customers.js';
import { savedCardsOf } from '../../rail-recipients.js';
import { merchantInvoicesRoutes } from '../../../packages/families/billing/http/merchant-invoices.js';
import { pageMerchantOf } from '../../../packages/families/assets/http/page-merchant.js';
import { merchantPayoutsRoutes } from '../../../packages/families/payouts/http/merchant-payouts.js';
import { banksRoutes } from '../../../packages/families/payouts/http/banks.js';
import { merchantProductsRoutes } from '../../../packages/families/billing/http/merchant-products.js';
import { merchantRefundsRoutes } from '../../../packages/families/billing/http/merchant-refunds.js';
import { merchantSettingsRoutes } from '../../../packages/families/payouts/http/merchant-settings.js';
import { merchantSubscriptionsRoutes } from '../../../packages/families/billing/http/merchant-subscriptions.js';
import { merchantTeamRoutes } from '../../../packages/families/accounts/http/merchant-team.js';
import { onboardingRoutes } from '../../../packages/families/merchants/http/onboarding.js';
import { operationsRoutes } from '../../../packages/families/payments/http/operations.js';
import { organizationsRoutes } from '../../../packages/families/accounts/http/organizations.js';
import { payRoutes } from '../../../packages/families/checkout/http/pay.js';
import { paymentCapabilitiesRoutes } from '../../../packages/families/platform/http/payment-capabilities.js';
import { paymentIntentsRoutes } from '../../../packages/families/payments/http/payment-intents.js';
import { paymentLinksRoutes } from '../../../packages/families/checkout/http/payment-links.js';
import { payoutEngineRoutes } from '../../../packages/families/payout-engine/http/payout-engine.js';
import { payoutsRoutes } from '../../../packages/families/payouts/http/payouts.js';
import { limitsRoutes, riskRulesRoutes } from '../../../packages/families/risk/http/risk.js';
import { sandboxRoutes } from '../../../packages/families/payments/http/sandbox.js';
import { supportRoutes } from '../../../packages/families/support/http/support.js';
import { operatorStatementsRoutes, statementsRoutes } from '../../../packages/families/statements/http/statements.js';
import { templateEngineRoutes } from '../../../packages/families/templates/http/templates.js';
import { webhookEndpointsRoutes } from '../../../packages/families/webhooks/http/webhook-endpoints.js';
import { webhookReplaysRoutes } from '../../../packages/families/webhooks/http/webhook-replays.js';
import { operatorAuthRoutes } from '../../../packages/families/operators/http/auth.js';
import { operatorPasskeysRoutes } from '../../../packages/families/operators/http/passkeys.js';
import { operatorMerchantsRoutes } from '../../../packages/families/operators/http/merchants.js';
import { operatorTeamRoutes } from '../../../packages/families/operators/http/team.js';
import { operatorRailsRoutes } from './operator-rails.js';
import { operatorLimitsRoutes } from '../../../packages/families/operators/http/limits.js';
import { operatorRiskRulesRoutes } from '../../../packages/families/operators/http/risk-rules.js';
import { operatorApplicationsRoutes } from '../../../packages/families/operators/http/applications.js';
import { operatorPayoutsRoutes } from '../../../packages/families/operators/http/payouts.js';

/** What the routers are built from: the running system, and the dashboard's session cookies. */
export interface Edge {
  system: System;
  cookies: SessionCookies;
}

/** The edge as this system serves it. */
export function edgeOf(system: System): Edge {
  // Secure (and `__Secure-`) on HTTPS requests, and on every request when PUBLIC_URL is https (a TLS proxy not named in TRUST_PROXY).
  return { system, cookies: new SessionCookies(system.config.publicUrl.startsWith('https:')) };
}

/** One family's routes: a router (`RouteGroup` of packages/http) per route file, each built from the edge. */
export interface FamilyRoutes {
  family: string;
  routers: readonly ((edge: Edge) => RouteGroup)[];
  /** Routers whose schemas list every scope an API key may hold: built after all the others, from the scopes those ask for. */
  keyScoped?: readonly ((edge: Edge, keyScopes: readonly string[]) => RouteGroup)[];
}

/**
 * The route list: each family's route files, one entry per family (docs/architecture.md, "The read
 * side and the edge"). A new family adds its entry here and edits nothing else shared; the server
 * (services/api/app.ts) mounts the routers in its own fixed order.
 */
export const ROUTES: readonly FamilyRoutes[] = [
  // The service's own: probes, the operator and fee catalogue (packages/catalog), the rails' callbacks; no family's.
  {
    family: 'service',
    routers: [
      ({ system }) => healthRoutes(system.knex, system.config.eventStore === 'esdb' ? 'projector' : 'inline'),
      () => geographyRoutes(),
      () => feesRoutes(),
      // The rails' callbacks (docs/connectors.md).
      ({ system }) => connectorsRoutes(system.railInbound),
    ],
  },
  {
    family: 'accounts',
    routers: [
      ({ system, cookies }) => authRoutes(system.accounts, system.userSessions, system.signIns, system.knex, system.clock, cookies),
      ({ system, cookies }) => authSecurityRoutes(system.knex, system.clock, system.secondFactors, system.signIns, system.contactChanges, cookies),
      ({ system, cookies }) => authPasskeysRoutes(system.knex, system.passkeys, system.signIns, cookies),
      ({ system, cookies }) => authSignUpRoutes(system.accounts, system.verifications, system.signUp, system.signIns, cookies),
      ({ system }) => authGoogleRoutes(system.google),
      ({ system, cookies }) => invitationsRoutes(system.signUp, cookies),
      ({ system }) => organizationsRoutes(system.knex, system.userSessions, system.organizations),
      ({ system }) => merchantTeamRoutes(system.knex, system.clock, system.organizations),
    ],
  },
  {
    family: 'merchants',
    routers: [
      ({ system }) => onboardingRoutes(system.knex),
      // Whether live is open: the outcome of the activation application (docs/configuration.md, "Live activation").
      ({ system }) => liveActivationRoutes(system.knex),
    ],
    keyScoped: [({ system }, keyScopes) => merchantApiKeysRoutes(system.knex, system.clock, system.apiKeyManagement, keyScopes)],
  },
  {
    family: 'platform',
    routers: [
      ({ system }) => paymentCapabilitiesRoutes(system.knex, system.paymentCapabilities),
      ({ system }) => configurationRoutes(system.knex, system.countryActivations, system.featureFlags, (country) => railChoices(system.connectors, 'live', country)),
    ],
  },
  {
    family: 'payments',
    routers: [
      ({ system }) => paymentIntentsRoutes(system.knex, system.paymentIntents, system.paymentIntentOtps),
      ({ system }) => operationsRoutes(system.knex, pageMerchantOf(system.knex, system.assets), system.collectionOutcomes),
      ({ system }) => sandboxRoutes(system.knex, system.collectionOutcomes),
    ],
  },
  {
    family: 'ledger',
    routers: [({ system }) => balanceRoutes(system.knex), ({ system }) => balanceTransactionsRoutes(system.knex)],
  },
  {
    family: 'payouts',
    routers: [
      ({ system }) => payoutsRoutes(system.knex, system.payouts, system.payoutReviews),
      ({ system }) => merchantPayoutsRoutes(system.knex, system.payouts),
      ({ system }) => banksRoutes(system.payoutBanks, system.accountHolders),
      // Payout settings and methods, and (until merchant settings are split) the portal settings.
      ({ system }) => merchantSettingsRoutes(system.knex, system.store, system.clock, system.merchantPayoutSettings, system.portalSettings, system.config.publicUrl),
    ],
  },
  // The risk team's limits and holds, as the merchant reads them (docs/limits.md).
  { family: 'risk', routers: [({ system }) => limitsRoutes(system.knex, system.merchantLimits), ({ system }) => riskRulesRoutes(system.riskRules)] },
  { family: 'payout-engine', routers: [({ system }) => payoutEngineRoutes(system.knex, system.payoutRecipients, system.payoutBatchCreation, system.payoutBatchExecution)] },
  { family: 'marketplace', routers: [({ system }) => marketplaceRoutes(system.knex, system.marketplace)] },
  {
    family: 'escrow',
    routers: [({ system }) => escrowRoutes(system.knex, { contracts: system.escrowContracts, funding: system.escrowFunding, refunds: system.escrowRefunds, releases: system.escrowReleases, disputes: system.escrowDisputes })],
  },
  // Card disputes of live payments, from Paystack (docs/disputes.md).
  { family: 'disputes', routers: [({ system }) => disputesRoutes(system.knex, { evidence: system.disputeEvidence, acceptance: system.disputeAcceptance })] },
  {
    family: 'webhooks',
    routers: [
      ({ system }) => webhookEndpointsRoutes(system.knex, system.clock, system.webhookEndpoints, system.webhookTestEvents),
      ({ system }) => webhookReplaysRoutes(system.webhookReplays),
      // The events webhooks carry, for clients that missed some and for `sika listen` (docs/webhooks.md).
      ({ system }) => eventsRoutes(system.knex, system.clock, system.eventWaits, system.publicEvents),
    ],
  },
  // Merchant billing and the billing family: one model (docs/billing.md).
  {
    family: 'billing',
    routers: [
      ({ system }) => merchantCustomersRoutes(system.knex, system.billing.customers, (owner, id) => savedCardsOf(system.knex, owner, id)),
      ({ system }) => merchantProductsRoutes(system.knex, system.billing.products, (id, at) => system.billing.subscriptions.isStaleAttachment(id, at)),
      ({ system }) => merchantSubscriptionsRoutes(system.knex, system.billing.subscriptions),
      ({ system }) => merchantInvoicesRoutes(system.knex, system.billing, system.templateComposer, system.clock, pageMerchantOf(system.knex, system.assets)),
      ({ system }) => merchantRefundsRoutes(system.knex, system.billing.refunds),
      ({ system }) => billingRoutes(system.knex, system.billing),
    ],
  },
  // Hosted checkout: sessions, their page and its API, payment links (docs/checkout.md).
  {
    family: 'checkout',
    routers: [
      ({ system }) => checkoutSessionsRoutes(system.knex, system.clock, system.checkoutSessionOpening, system.checkoutSessionPayments),
      ({ system }) => checkoutApiRoutes(system.knex, system.clock, system.checkoutSessionPayments, system.templateComposer),
      ({ system }) => checkoutPagesRoutes(system.knex, system.clock, system.checkoutSessionPayments, system.checkoutBrowserMarks, system.config.publicUrl.startsWith('https:'), pageMerchantOf(system.knex, system.assets)),
      ({ system }) => paymentLinksRoutes(system.knex, system.paymentLinks),
      ({ system }) => payRoutes(system.knex, system.checkoutSessionOpening, system.config.publicUrl, pageMerchantOf(system.knex, system.assets)),
    ],
  },
  {
    family: 'customer-portal',
    routers: [
      ({ system }) => customerPortalRoutes(system.knex, system.clock, system.customerPortal, system.billing),
      ({ system }) => customerPortalPagesRoutes(system.knex, system.clock, system.customerPortal, system.billing, system.config.publicUrl.startsWith('https:'), pageMerchantOf(system.knex, system.assets)),
    ],
  },
  // Merchants' files (docs/assets.md).
  { family: 'assets', routers: [({ system }) => assetsRoutes(system.knex, system.assets)] },
  // Intelligence and context suggestions (docs/intelligence.md).
  {
    family: 'intelligence',
    routers: [({ system }) => intelligenceRoutes(system.knex, system.clock), ({ system }) => contextIntelligenceRoutes(system.knex, system.clock)],
  },
  // Support intake (docs/support.md).
  { family: 'support', routers: [({ system }) => supportRoutes(system.knex, system.supportTickets, system.rateLimiter)] },
  // Funding campaigns and their public pages (docs/funding.md).
  {
    family: 'funding',
    routers: [
      ({ system }) => fundingRoutes(system.knex, { campaigns: system.fundingCampaigns, contributions: system.fundingContributions, payouts: system.campaignPayouts, updates: system.campaignUpdates }),
      ({ system }) => fundingPagesRoutes(system.knex, system.fundingContributions, pageMerchantOf(system.knex, system.assets)),
    ],
  },
  // The template engine (docs/templates.md).
  { family: 'templates', routers: [({ system }) => templateEngineRoutes(system.knex, system.clock, system.templates)] },
  // Automations (docs/automations.md).
  { family: 'automations', routers: [({ system }) => automationsRoutes(system.knex, system.clock, system.automations, system.automationTriggers, system.automationRuns, system.publicEvents)] },
  // The platform's operators: their sign-in, team, and the merchants they run (docs/operator.md).
  {
    family: 'operators',
    routers: [
      ({ system }) => operatorAuthRoutes(system.knex, system.operators, system.config.publicUrl.startsWith('https:')),
      ({ system }) => operatorPasskeysRoutes(system.operators, system.operatorPasskeys),
      ({ system }) => operatorTeamRoutes(system.knex, system.operators),
      ({ system }) => operatorMerchantsRoutes(system.knex, system.store),
      ({ system }) => operatorRailsRoutes(system.knex, system.store, system.clock, system.connectors, system.railHealth, system.railFloat),
      ({ system }) => operatorLimitsRoutes(system.knex, system.merchantLimits),
      ({ system }) => operatorRiskRulesRoutes(system.platformRiskRules),
      ({ system }) => operatorApplicationsRoutes(system.knex, system.activationApplications, system.assets),
      ({ system }) => operatorPayoutsRoutes(system.knex, system.payoutReviews),
    ],
  },
  // Going live: the merchant's activation application (docs/merchants.md, "Going live").
  { family: 'activation', routers: [({ system }) => activationRoutes(system.activationApplications)] },
  // Statements a finance team can file (docs/statements.md).
  {
    family: 'statements',
    routers: [({ system }) => statementsRoutes(system.knex, system.statements, system.statementDownloadLinks), ({ system }) => operatorStatementsRoutes(system.knex, system.statements, system.statementDownloadLinks)],
  },
];
