import { liveActivationFamily } from '../../../packages/families/merchants/http/live-activation.js';
import { activationFamily } from '../../../packages/families/activation/http/activation.js';
import { connectorsFamily } from './connectors.js';
import type { Family } from '../../../packages/http/routes.js';
import type { System } from '../../system.js';
import { railChoices } from '../../rails.js';
import { assetsFamily } from '../../../packages/families/assets/http/assets.js';
import { authGoogleFamily } from '../../../packages/families/accounts/http/auth-google.js';
import { authPasskeysFamily } from '../../../packages/families/accounts/http/auth-passkeys.js';
import { authSecurityFamily } from '../../../packages/families/accounts/http/auth-security.js';
import { authSignUpFamily } from '../../../packages/families/accounts/http/auth-signup.js';
import { authFamily, SessionCookies } from '../../../packages/families/accounts/http/auth.js';
import { automationsFamily } from '../../../packages/families/automations/http/automations.js';
import { balanceTransactionsFamily } from '../../../packages/families/ledger/http/balance-transactions.js';
import { balanceFamily } from '../../../packages/families/ledger/http/balance.js';
import { billingFamily } from '../../../packages/families/billing/http/billing.js';
import { checkoutApiFamily } from '../../../packages/families/checkout/http/checkout-api.js';
import { checkoutPagesFamily } from '../../../packages/families/checkout/http/checkout-pages.js';
import { checkoutSessionsFamily } from '../../../packages/families/checkout/http/checkout-sessions.js';
import { configurationFamily } from '../../../packages/families/platform/http/configuration.js';
import { customerPortalPagesFamily } from '../../../packages/families/customer-portal/http/customer-portal-pages.js';
import { customerPortalFamily } from '../../../packages/families/customer-portal/http/customer-portal.js';
import { escrowFamily } from '../../../packages/families/escrow/http/escrow.js';
import { disputesFamily } from '../../../packages/families/disputes/http/disputes.js';
import { eventsFamily } from '../../../packages/families/webhooks/http/events.js';
import { feesFamily } from './fees.js';
import { fundingPagesFamily } from '../../../packages/families/funding/http/funding-pages.js';
import { fundingFamily } from '../../../packages/families/funding/http/funding.js';
import { geographyFamily } from './geography.js';
import { healthFamily } from './health.js';
import { contextIntelligenceFamily, intelligenceFamily } from '../../../packages/families/intelligence/http/intelligence.js';
import { invitationsFamily } from '../../../packages/families/accounts/http/invitations.js';
import { marketplaceFamily } from '../../../packages/families/marketplace/http/marketplace.js';
import { merchantApiKeysFamily } from '../../../packages/families/merchants/http/merchant-api-keys.js';
import { merchantCustomersFamily } from '../../../packages/families/billing/http/merchant-customers.js';
import { savedCardsOf } from '../../rail-recipients.js';
import { merchantInvoicesFamily } from '../../../packages/families/billing/http/merchant-invoices.js';
import { pageMerchantOf } from '../../../packages/families/assets/http/page-merchant.js';
import { merchantPayoutsFamily } from '../../../packages/families/payouts/http/merchant-payouts.js';
import { banksFamily } from '../../../packages/families/payouts/http/banks.js';
import { merchantProductsFamily } from '../../../packages/families/billing/http/merchant-products.js';
import { merchantRefundsFamily } from '../../../packages/families/billing/http/merchant-refunds.js';
import { merchantSettingsFamily } from '../../../packages/families/payouts/http/merchant-settings.js';
import { merchantSubscriptionsFamily } from '../../../packages/families/billing/http/merchant-subscriptions.js';
import { merchantTeamFamily } from '../../../packages/families/accounts/http/merchant-team.js';
import { onboardingFamily } from '../../../packages/families/merchants/http/onboarding.js';
import { operationsFamily } from '../../../packages/families/payments/http/operations.js';
import { organizationsFamily } from '../../../packages/families/accounts/http/organizations.js';
import { payFamily } from '../../../packages/families/checkout/http/pay.js';
import { paymentCapabilitiesFamily } from '../../../packages/families/platform/http/payment-capabilities.js';
import { paymentIntentsFamily } from '../../../packages/families/payments/http/payment-intents.js';
import { paymentLinksFamily } from '../../../packages/families/checkout/http/payment-links.js';
import { payoutEngineFamily } from '../../../packages/families/payout-engine/http/payout-engine.js';
import { payoutsFamily } from '../../../packages/families/payouts/http/payouts.js';
import { limitsFamily, riskRulesFamily } from '../../../packages/families/risk/http/risk.js';
import { sandboxFamily } from '../../../packages/families/payments/http/sandbox.js';
import { supportFamily } from '../../../packages/families/support/http/support.js';
import { operatorStatementsFamily, statementsFamily } from '../../../packages/families/statements/http/statements.js';
import { templateEngineFamily } from '../../../packages/families/templates/http/templates.js';
import { webhookEndpointsFamily } from '../../../packages/families/webhooks/http/webhook-endpoints.js';
import { webhookReplaysFamily } from '../../../packages/families/webhooks/http/webhook-replays.js';
import { operatorAuthFamily } from '../../../packages/families/operators/http/auth.js';
import { operatorPasskeysFamily } from '../../../packages/families/operators/http/passkeys.js';
import { operatorMerchantsFamily } from '../../../packages/families/operators/http/merchants.js';
import { operatorTeamFamily } from '../../../packages/families/operators/http/team.js';
import { operatorRailsFamily } from './operator-rails.js';
import { operatorLimitsFamily } from '../../../packages/families/operators/http/limits.js';
import { operatorRiskRulesFamily } from '../../../packages/families/operators/http/risk-rules.js';
import { operatorApplicationsFamily } from '../../../packages/families/operators/http/applications.js';
import { operatorPayoutsFamily } from '../../../packages/families/operators/http/payouts.js';

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

/** One family's routes: a router (`Family` of packages/http) per route file, each built from the edge. */
export interface FamilyRoutes {
  family: string;
  routers: readonly ((edge: Edge) => Family)[];
  /** Routers whose schemas list every scope an API key may hold: built after all the others, from the scopes those ask for. */
  keyScoped?: readonly ((edge: Edge, keyScopes: readonly string[]) => Family)[];
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
      ({ system }) => healthFamily(system.knex, system.config.eventStore === 'esdb' ? 'projector' : 'inline'),
      () => geographyFamily(),
      () => feesFamily(),
      // The rails' callbacks (docs/connectors.md).
      ({ system }) => connectorsFamily(system.railInbound),
    ],
  },
  {
    family: 'accounts',
    routers: [
      ({ system, cookies }) => authFamily(system.accounts, system.userSessions, system.signIns, system.knex, system.clock, cookies),
      ({ system, cookies }) => authSecurityFamily(system.knex, system.clock, system.secondFactors, system.signIns, system.contactChanges, cookies),
      ({ system, cookies }) => authPasskeysFamily(system.knex, system.passkeys, system.signIns, cookies),
      ({ system, cookies }) => authSignUpFamily(system.accounts, system.verifications, system.signUp, system.signIns, cookies),
      ({ system }) => authGoogleFamily(system.google),
      ({ system, cookies }) => invitationsFamily(system.signUp, cookies),
      ({ system }) => organizationsFamily(system.knex, system.userSessions, system.organizations),
      ({ system }) => merchantTeamFamily(system.knex, system.clock, system.organizations),
    ],
  },
  {
    family: 'merchants',
    routers: [
      ({ system }) => onboardingFamily(system.knex),
      // Whether live is open: the outcome of the activation application (docs/configuration.md, "Live activation").
      ({ system }) => liveActivationFamily(system.knex),
    ],
    keyScoped: [({ system }, keyScopes) => merchantApiKeysFamily(system.knex, system.clock, system.apiKeyManagement, keyScopes)],
  },
  {
    family: 'platform',
    routers: [
      ({ system }) => paymentCapabilitiesFamily(system.knex, system.paymentCapabilities),
      ({ system }) => configurationFamily(system.knex, system.countryActivations, system.featureFlags, (country) => railChoices(system.connectors, 'live', country)),
    ],
  },
  {
    family: 'payments',
    routers: [
      ({ system }) => paymentIntentsFamily(system.knex, system.paymentIntents, system.paymentIntentOtps),
      ({ system }) => operationsFamily(system.knex, pageMerchantOf(system.knex, system.assets), system.collectionOutcomes),
      ({ system }) => sandboxFamily(system.knex, system.collectionOutcomes),
    ],
  },
  {
    family: 'ledger',
    routers: [({ system }) => balanceFamily(system.knex), ({ system }) => balanceTransactionsFamily(system.knex)],
  },
  {
    family: 'payouts',
    routers: [
      ({ system }) => payoutsFamily(system.knex, system.payouts, system.payoutReviews),
      ({ system }) => merchantPayoutsFamily(system.knex, system.payouts),
      ({ system }) => banksFamily(system.payoutBanks, system.accountHolders),
      // Payout settings and methods, and (until merchant settings are split) the portal settings.
      ({ system }) => merchantSettingsFamily(system.knex, system.store, system.clock, system.merchantPayoutSettings, system.portalSettings, system.config.publicUrl),
    ],
  },
  // The risk team's limits and holds, as the merchant reads them (docs/limits.md).
  { family: 'risk', routers: [({ system }) => limitsFamily(system.knex, system.merchantLimits), ({ system }) => riskRulesFamily(system.riskRules)] },
  { family: 'payout-engine', routers: [({ system }) => payoutEngineFamily(system.knex, system.payoutRecipients, system.payoutBatchCreation, system.payoutBatchExecution)] },
  { family: 'marketplace', routers: [({ system }) => marketplaceFamily(system.knex, system.marketplace)] },
  { family: 'escrow', routers: [({ system }) => escrowFamily(system.knex, system.escrow)] },
  // Card disputes of live payments, from Paystack (docs/disputes.md).
  { family: 'disputes', routers: [({ system }) => disputesFamily(system.knex, { evidence: system.disputeEvidence, acceptance: system.disputeAcceptance })] },
  {
    family: 'webhooks',
    routers: [
      ({ system }) => webhookEndpointsFamily(system.knex, system.clock, system.webhookEndpoints, system.webhooks),
      ({ system }) => webhookReplaysFamily(system.webhooks),
      // The events webhooks carry, for clients that missed some and for `sika listen` (docs/webhooks.md).
      ({ system }) => eventsFamily(system.knex, system.clock, system.eventWaits),
    ],
  },
  // Merchant billing and the billing family: one model (docs/billing.md).
  {
    family: 'billing',
    routers: [
      ({ system }) => merchantCustomersFamily(system.knex, system.billing.customers, (owner, id) => savedCardsOf(system.knex, owner, id)),
      ({ system }) => merchantProductsFamily(system.knex, system.billing.products, (id, at) => system.billing.subscriptions.isStaleAttachment(id, at)),
      ({ system }) => merchantSubscriptionsFamily(system.knex, system.billing.subscriptions),
      ({ system }) => merchantInvoicesFamily(system.knex, system.billing, system.templateComposer, system.clock, pageMerchantOf(system.knex, system.assets)),
      ({ system }) => merchantRefundsFamily(system.knex, system.billing.refunds),
      ({ system }) => billingFamily(system.knex, system.billing),
    ],
  },
  // Hosted checkout: sessions, their page and its API, payment links (docs/checkout.md).
  {
    family: 'checkout',
    routers: [
      ({ system }) => checkoutSessionsFamily(system.knex, system.clock, system.checkoutSessionOpening, system.checkoutSessionPayments),
      ({ system }) => checkoutApiFamily(system.knex, system.clock, system.checkoutSessionPayments, system.templateComposer),
      ({ system }) => checkoutPagesFamily(system.knex, system.clock, system.checkoutSessionPayments, system.checkoutBrowserMarks, system.config.publicUrl.startsWith('https:'), pageMerchantOf(system.knex, system.assets)),
      ({ system }) => paymentLinksFamily(system.knex, system.paymentLinks),
      ({ system }) => payFamily(system.knex, system.checkoutSessionOpening, system.config.publicUrl, pageMerchantOf(system.knex, system.assets)),
    ],
  },
  {
    family: 'customer-portal',
    routers: [
      ({ system }) => customerPortalFamily(system.knex, system.clock, system.customerPortal, system.billing),
      ({ system }) => customerPortalPagesFamily(system.knex, system.clock, system.customerPortal, system.billing, system.config.publicUrl.startsWith('https:'), pageMerchantOf(system.knex, system.assets)),
    ],
  },
  // Merchants' files (docs/assets.md).
  { family: 'assets', routers: [({ system }) => assetsFamily(system.knex, system.assets)] },
  // Intelligence and context suggestions (docs/intelligence.md).
  {
    family: 'intelligence',
    routers: [({ system }) => intelligenceFamily(system.knex, system.clock), ({ system }) => contextIntelligenceFamily(system.knex, system.clock)],
  },
  // Support intake (docs/support.md).
  { family: 'support', routers: [({ system }) => supportFamily(system.knex, system.supportTickets, system.rateLimiter)] },
  // Funding campaigns and their public pages (docs/funding.md).
  {
    family: 'funding',
    routers: [({ system }) => fundingFamily(system.knex, system.funding), ({ system }) => fundingPagesFamily(system.knex, system.funding, pageMerchantOf(system.knex, system.assets))],
  },
  // The template engine (docs/templates.md).
  { family: 'templates', routers: [({ system }) => templateEngineFamily(system.knex, system.clock, system.templates)] },
  // Automations (docs/automations.md).
  { family: 'automations', routers: [({ system }) => automationsFamily(system.knex, system.clock, system.automations, system.automationTriggers, system.automationRuns)] },
  // The platform's operators: their sign-in, team, and the merchants they run (docs/operator.md).
  {
    family: 'operators',
    routers: [
      ({ system }) => operatorAuthFamily(system.knex, system.operators, system.config.publicUrl.startsWith('https:')),
      ({ system }) => operatorPasskeysFamily(system.operators, system.operatorPasskeys),
      ({ system }) => operatorTeamFamily(system.knex, system.operators),
      ({ system }) => operatorMerchantsFamily(system.knex, system.store),
      ({ system }) => operatorRailsFamily(system.knex, system.store, system.clock, system.connectors, system.railHealth, system.railFloat),
      ({ system }) => operatorLimitsFamily(system.knex, system.merchantLimits),
      ({ system }) => operatorRiskRulesFamily(system.platformRiskRules),
      ({ system }) => operatorApplicationsFamily(system.knex, system.activationApplications, system.assets),
      ({ system }) => operatorPayoutsFamily(system.knex, system.payoutReviews),
    ],
  },
  // Going live: the merchant's activation application (docs/merchants.md, "Going live").
  { family: 'activation', routers: [({ system }) => activationFamily(system.activationApplications)] },
  // Statements a finance team can file (docs/statements.md).
  {
    family: 'statements',
    routers: [
      ({ system }) => statementsFamily(system.knex, system.statements, system.statementDownloadLinks),
      ({ system }) => operatorStatementsFamily(system.knex, system.statements, system.statementDownloadLinks),
    ],
  },
];
