import { createApp } from '../../packages/http/app.js';
import type { Family } from '../../packages/http/routes.js';
import type { System } from '../system.js';
import { buildOpenApi, openApiFamily } from './openapi.js';
import { dashboardSite } from './dashboard.js';
import { authFamily, SessionCookies } from './routes/auth.js';
import { authPasskeysFamily } from './routes/auth-passkeys.js';
import { authGoogleFamily } from './routes/auth-google.js';
import { authSecurityFamily } from './routes/auth-security.js';
import { authSignUpFamily } from './routes/auth-signup.js';
import { invitationsFamily } from './routes/invitations.js';
import { balanceTransactionsFamily } from './routes/balance-transactions.js';
import { balanceFamily } from './routes/balance.js';
import { billingFamily } from './routes/billing.js';
import { checkoutApiFamily } from './routes/checkout-api.js';
import { checkoutPagesFamily } from './routes/checkout-pages.js';
import { checkoutSessionsFamily } from './routes/checkout-sessions.js';
import { customerPortalPagesFamily } from './routes/customer-portal-pages.js';
import { customerPortalFamily } from './routes/customer-portal.js';
import { configurationFamily } from './routes/configuration.js';
import { liveActivationFamily } from './routes/live-activation.js';
import { feesFamily } from './routes/fees.js';
import { fundingFamily } from './routes/funding.js';
import { fundingPagesFamily } from './routes/funding-pages.js';
import { geographyFamily } from './routes/geography.js';
import { healthFamily } from './routes/health.js';
import { merchantCustomersFamily } from './routes/merchant-customers.js';
import { merchantInvoicesFamily } from './routes/merchant-invoices.js';
import { merchantPayoutsFamily } from './routes/merchant-payouts.js';
import { merchantProductsFamily } from './routes/merchant-products.js';
import { merchantRefundsFamily } from './routes/merchant-refunds.js';
import { merchantTeamFamily } from './routes/merchant-team.js';
import { merchantSettingsFamily } from './routes/merchant-settings.js';
import { merchantSubscriptionsFamily } from './routes/merchant-subscriptions.js';
import { onboardingFamily } from './routes/onboarding.js';
import { operationsFamily } from './routes/operations.js';
import { organizationsFamily } from './routes/organizations.js';
import { paymentCapabilitiesFamily } from './routes/payment-capabilities.js';
import { paymentIntentsFamily } from './routes/payment-intents.js';
import { paymentLinksFamily } from './routes/payment-links.js';
import { payFamily } from './routes/pay.js';
import { payoutEngineFamily } from './routes/payout-engine.js';
import { marketplaceFamily } from './routes/marketplace.js';
import { escrowFamily } from './routes/escrow.js';
import { payoutsFamily } from './routes/payouts.js';
import { sandboxFamily } from './routes/sandbox.js';
import { webhookEndpointsFamily } from './routes/webhook-endpoints.js';
import { webhookReplaysFamily } from './routes/webhook-replays.js';
import { assetsFamily } from './routes/assets.js';
import { contextIntelligenceFamily, intelligenceFamily } from './routes/intelligence.js';
import { supportFamily } from './routes/support.js';
import { templateEngineFamily } from './routes/template-engine.js';
import { automationsFamily } from './routes/automations.js';
import { merchantApiKeysFamily } from './routes/merchant-api-keys.js';
import { eventsFamily } from './routes/events.js';
import { usable } from '../../projections/api-keys.js';
import { ADMIN_KEY_SHAPE } from '../../packages/domain/platform-admin/commands.js';
import { adminActor } from '../../packages/domain/platform-admin/events.js';
import { findAdminKeyByHash } from '../../projections/admin-keys.js';

/** The families of the interface this service serves, one router each. */
export function apiFamilies(system: System): Family[] {
  // Secure (and `__Secure-`) on HTTPS requests, and on every request when PUBLIC_URL is https (a TLS proxy not named in TRUST_PROXY).
  const cookies = new SessionCookies(system.config.publicUrl.startsWith('https:'));
  const families = [
    healthFamily(system.knex, system.config.eventStore === 'esdb' ? 'projector' : 'inline'),
    authFamily(system.accounts, system.signIns, system.knex, system.clock, cookies),
    authSecurityFamily(system.knex, system.clock, system.secondFactors, system.signIns, system.contactChanges, cookies),
    authPasskeysFamily(system.knex, system.passkeys, system.signIns, cookies),
    authSignUpFamily(system.accounts, system.verifications, system.signUp, system.signIns, cookies),
    authGoogleFamily(system.google),
    invitationsFamily(system.signUp, cookies),
    organizationsFamily(system.knex, system.accounts, system.organizations),
    onboardingFamily(system.knex),
    geographyFamily(),
    feesFamily(),
    paymentIntentsFamily(system.knex, system.paymentIntents),
    balanceFamily(system.knex),
    balanceTransactionsFamily(system.knex),
    operationsFamily(system.knex),
    sandboxFamily(system.knex, system.paymentIntents),
    payoutsFamily(system.knex, system.payouts),
    merchantPayoutsFamily(system.knex, system.payouts),
    payoutEngineFamily(system.knex, system.payoutRecipients, system.payoutBatches),
    marketplaceFamily(system.knex, system.marketplace),
    escrowFamily(system.knex, system.escrow),
    paymentCapabilitiesFamily(system.knex, system.paymentCapabilities),
    configurationFamily(system.knex, system.countryActivations, system.featureFlags),
    liveActivationFamily(system.knex, system.store, system.clock),
    merchantSettingsFamily(system.knex, system.store, system.clock, system.merchantSettings, system.config.publicUrl),
    webhookEndpointsFamily(system.knex, system.clock, system.webhookEndpoints, system.webhooks),
    webhookReplaysFamily(system.webhooks),
    // The events webhooks carry, for clients that missed some and for `sika listen` (docs/webhooks.md).
    eventsFamily(system.knex, system.clock, system.eventWaits),
    // Merchant billing and the billing family: one model (docs/billing.md).
    merchantCustomersFamily(system.knex, system.billing.customers),
    merchantProductsFamily(system.knex, system.billing.products, (id, at) => system.billing.subscriptions.isStaleAttachment(id, at)),
    merchantSubscriptionsFamily(system.knex, system.billing.subscriptions),
    merchantInvoicesFamily(system.knex, system.billing.invoices, system.templateComposer, system.clock),
    merchantRefundsFamily(system.knex, system.billing.refunds),
    merchantTeamFamily(system.knex, system.clock, system.organizations),
    billingFamily(system.knex, system.billing),
    // Hosted checkout: sessions, their page and its API, payment links (docs/checkout.md).
    checkoutSessionsFamily(system.knex, system.clock, system.checkoutSessions),
    checkoutApiFamily(system.knex, system.clock, system.checkoutSessions, system.templateComposer),
    checkoutPagesFamily(system.knex, system.clock, system.checkoutSessions, system.checkoutBrowserMarks, system.config.publicUrl.startsWith('https:')),
    paymentLinksFamily(system.knex, system.paymentLinks),
    payFamily(system.knex, system.checkoutSessions, system.config.publicUrl),
    customerPortalFamily(system.knex, system.clock, system.customerPortal, system.billing, system.paymentIntents),
    customerPortalPagesFamily(system.knex, system.clock, system.customerPortal, system.billing, system.config.publicUrl.startsWith('https:')),
    // Merchants' files (docs/assets.md).
    assetsFamily(system.knex, system.assets),
    // Intelligence and context suggestions (docs/intelligence.md).
    intelligenceFamily(system.knex, system.clock),
    contextIntelligenceFamily(system.knex, system.clock),
    // Support intake (docs/support.md).
    supportFamily(system.knex, system.supportTickets, system.rateLimiter),
    // Funding campaigns and their public pages (docs/funding.md).
    fundingFamily(system.knex, system.funding),
    fundingPagesFamily(system.knex, system.funding),
    // The template engine (docs/template-engine.md)
    templateEngineFamily(system.knex, system.clock, system.templates),
    // Automations (docs/automations.md)
    automationsFamily(system.knex, system.clock, system.automations, system.automationRunner),
  ];
  return [...families, merchantApiKeysFamily(system.knex, system.clock, system.apiKeyManagement, keyScopes(families))];
}

/** The scopes an API key may hold: `*`, `*.read`, and each scope a route or handler of these families asks for. */
function keyScopes(families: readonly Family[]): string[] {
  const asked = families.flatMap((f) => [...f.routes.map((r) => (r.auth === 'public' || r.auth.appTokenOnly || r.auth.platform === 'only' ? null : r.auth.scope)), ...(f.scopes ?? [])]);
  return ['*', '*.read', ...[...new Set(asked.filter((s): s is string => s !== null))].sort()];
}

/** Every family the server mounts, /openapi.json included. */
function allFamilies(system: System, extra: Family[]): Family[] {
  let document: Record<string, unknown> | null = null;
  const all: Family[] = [...apiFamilies(system), ...extra, openApiFamily(() => (document ??= buildOpenApi(all)))];
  return all;
}

/** The OpenAPI document of this service (what GET /openapi.json serves, and docs/openapi.json holds). */
export function openApiDocument(system: System): Record<string, unknown> {
  return buildOpenApi(allFamilies(system, []));
}

export function buildApi(system: System, extra: Family[] = [], options: { checkAnswers?: boolean } = {}) {
  return createApp({
    ...options,
    knex: system.knex,
    sites: [dashboardSite()],
    credentials: {
      apiKeys: async (keyHash) => {
        const key = await system.apiKeys.find(keyHash);
        if (!key || !usable(key, system.clock.now())) return undefined;
        await system.apiKeyUsage.used(key.id);
        return key;
      },
      adminKeys: {
        looksLike: (credential) => ADMIN_KEY_SHAPE.test(credential),
        actorOf: async (keyHash) => {
          const admin = await findAdminKeyByHash(system.knex, keyHash);
          return admin ? adminActor(admin.id) : undefined;
        },
      },
      appTokens: system.accounts,
    },
    log: system.log,
    idempotency: system.idempotency,
    families: allFamilies(system, extra),
    metrics: system.metrics,
    metricsToken: system.config.metricsToken,
    rateLimits: {
      limiter: system.rateLimiter,
      perCredential: system.config.rateLimitPerCredential,
      perAddress: system.config.rateLimitPerAddress,
      signIn: system.config.signInLimit,
      signInAddress: system.config.signInAddressLimit,
    },
    trustedProxies: system.config.trustedProxies,
  });
}
