import { inFrozenOrder } from '#packages/core/frozen-order.js';
import { createApp, type AppDeps } from '#packages/http/app.js';
import type { RouteGroup } from '#packages/http/routes.js';
import type { System } from '../system.js';
import { ERROR_CODES } from '#packages/families/index.js';
import { buildOpenApi, openApiFamily } from './openapi.js';
import { consoleSite, dashboardSite } from './dashboard.js';
import { REFERENCE_MOUNT, referenceSite } from './reference/site.js';
import { loadExamples } from './reference/examples.js';
import { SERVICE_ROUTERS } from './routes/index.js';
import { FAMILIES } from '#packages/families/index.js';
import type { FamilyRouters, ListedFamily } from '#packages/families/family.js';
import { adminKeyCredentials } from '#packages/families/platform/read/index.js';
import { apiKeyCredentials } from '#packages/families/merchants/read/index.js';
import { operatorSessionCredentials } from '#packages/families/operators/read/index.js';

/**
 * The routers (by their `RouteGroup.name`) mounted when the server began to be assembled from the route
 * list, in the order they were then mounted. The order is part of the interface: routes match in
 * it, and docs/openapi.json lists paths and tags in it. So it is frozen here rather than derived
 * from the order of the families in the family list; a router added later is mounted after these:
 * the service's own first, then the families' in list order.
 */
const ORDER_AT_ASSEMBLY: readonly string[] = [
  'health',
  'auth',
  'auth-security',
  'auth-passkeys',
  'auth-signup',
  'auth-google',
  'invitations',
  'organizations',
  'onboarding',
  'geography',
  'fees',
  'payment-intents',
  'balance',
  'balance-transactions',
  'operations',
  'sandbox',
  'payouts',
  'merchant-payouts',
  'payout-engine',
  'marketplace',
  'escrow',
  'payment_capabilities',
  'configuration',
  'merchant-settings',
  'webhook-endpoints',
  'webhook-replays',
  'events',
  'merchant-customers',
  'merchant-products',
  'merchant-subscriptions',
  'merchant-invoices',
  'merchant-refunds',
  'merchant-team',
  'billing',
  'checkout-sessions',
  'checkout-api',
  'checkout',
  'payment-links',
  'pay',
  'customer-portal',
  'customer-portal-pages',
  'assets',
  'intelligence',
  'context-intelligence',
  'support',
  'funding',
  'funding-pages',
  'template-engine',
  'automations',
  'merchant-api-keys',
  // Added before the family list paired each manifest with its routers, in the order the route list then gave them.
  'connectors',
  'live-activation',
  'banks',
  'limits',
  'risk',
  'disputes',
  'operator-auth',
  'operator-passkeys',
  'operator-team',
  'operator-merchants',
  'operator-rails',
  'operator-limits',
  'operator-risk-rules',
  'operator-applications',
  'operator-payouts',
  'activation',
  'statements',
  'operator statements',
];

/** The routers of the interface this service serves: the service's own, and each family's from the family list. */
export function apiFamilies(system: System): RouteGroup[] {
  // Each family's routers see the system as their family does (EdgeSystemOf): the whole system is all of those at once.
  const families = (FAMILIES as readonly ListedFamily[]).flatMap((family) => (family.http ? [family.http as FamilyRouters<System>] : []));
  const routers = [...SERVICE_ROUTERS.map((build) => build(system)), ...families.flatMap((family) => family.routers.map((build) => build(system)))];
  const scopes = keyScopes(routers);
  const keyScoped = families.flatMap((family) => (family.keyScoped ?? []).map((build) => build(system, scopes)));
  return inFrozenOrder([...routers, ...keyScoped], ORDER_AT_ASSEMBLY, (router) => router.name, 'routers');
}

/** The scopes an API key may hold: `*`, `*.read`, and each scope a route or handler of these families asks for. */
function keyScopes(families: readonly RouteGroup[]): string[] {
  const asked = families.flatMap((f) => [...f.routes.map((r) => (r.auth === 'public' || r.auth.appTokenOnly || r.auth.platform === 'only' || r.auth.operator ? null : r.auth.scope)), ...(f.scopes ?? [])]);
  return ['*', '*.read', ...[...new Set(asked.filter((s): s is string => s !== null))].sort()];
}

/** Every family the server mounts, /openapi.json included. */
function allFamilies(system: System, extra: RouteGroup[]): { families: RouteGroup[]; document: () => Record<string, unknown> } {
  let built: Record<string, unknown> | null = null;
  const document = () => (built ??= buildOpenApi(all, loadExamples()));
  const all: RouteGroup[] = [...apiFamilies(system), ...extra, openApiFamily(document)];
  return { families: all, document };
}

/** The OpenAPI document of this service (what GET /openapi.json serves, and docs/openapi.json holds). */
export function openApiDocument(system: System): Record<string, unknown> {
  return allFamilies(system, []).document();
}

export function buildApi(system: System, extra: RouteGroup[] = [], options: Pick<AppDeps, 'checkAnswers' | 'recordExchange' | 'compileSchemasOnFirstUse'> = {}) {
  const { families, document } = allFamilies(system, extra);
  return createApp({
    ...options,
    knex: system.knex,
    sites: [dashboardSite(), consoleSite()],
    pages: [{ mount: REFERENCE_MOUNT, handler: referenceSite(document), rel: 'service-doc' }],
    credentials: {
      apiKeys: apiKeyCredentials(system.apiKeys, system.apiKeyUsage, system.clock),
      adminKeys: adminKeyCredentials(system.knex),
      appTokens: system.userSessions,
      operatorSessions: operatorSessionCredentials(system.knex, system.operatorTokens, system.clock),
    },
    log: system.log,
    idempotency: system.idempotency,
    families,
    errors: ERROR_CODES,
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
