import { useEffect, useState } from 'react';
import type { Environment } from '../../../../clients/typescript/src/index.js';

/**
 * The application's pages, by path under /dashboard/. A page with `:id` in its path takes the
 * object it shows from the address, so a link to a payout or a payment can be shared. Live is part
 * of the address too: the same paths under /dashboard/live/ (LIVE_PREFIX), so a reload or a shared
 * link keeps the environment; the paths as written here are sandbox's.
 */
const PATHS = {
  home: '/dashboard/',
  payments: '/dashboard/payments',
  payment: '/dashboard/payments/:id',
  refunds: '/dashboard/refunds',
  paymentLinks: '/dashboard/payment-links',
  // Disputes of card payments (issue 67): the list and a dispute's page.
  disputes: '/dashboard/disputes',
  dispute: '/dashboard/disputes/:id',
  payouts: '/dashboard/payouts',
  payout: '/dashboard/payouts/:id',
  payoutBatches: '/dashboard/payout-batches',
  payoutBatch: '/dashboard/payout-batches/:id',
  developers: '/dashboard/developers',
  webhooks: '/dashboard/webhooks',
  webhookEndpoint: '/dashboard/webhooks/:id',
  team: '/dashboard/team',
  settings: '/dashboard/settings',
  // A section of Settings (profile, security, payouts), so a link opens that section.
  settingsSection: '/dashboard/settings/:id',
  help: '/dashboard/help',
  reports: '/dashboard/reports',
  insights: '/dashboard/insights',
  // The risk team's limits and holds on the merchant, read-only.
  limits: '/dashboard/limits',
  // The merchant's risk rules and blocklist (docs/risk.md).
  riskRules: '/dashboard/risk-rules',
  files: '/dashboard/files',
  configuration: '/dashboard/configuration',
  // The application to take live money (the go-live checklist's last step).
  goLive: '/dashboard/go-live',
  funding: '/dashboard/funding',
  fundingCampaign: '/dashboard/funding/:id',
  escrow: '/dashboard/escrow',
  escrowContract: '/dashboard/escrow/:id',
  marketplace: '/dashboard/marketplace',
  marketplaceOrder: '/dashboard/marketplace/orders/:id',
  marketplaceSeller: '/dashboard/marketplace/sellers/:id',
  customers: '/dashboard/customers',
  customer: '/dashboard/customers/:id',
  products: '/dashboard/products',
  subscriptions: '/dashboard/subscriptions',
  subscription: '/dashboard/subscriptions/:id',
  invoices: '/dashboard/invoices',
  invoice: '/dashboard/invoices/:id',
  templates: '/dashboard/templates',
  template: '/dashboard/templates/:id',
  automations: '/dashboard/automations',
  automation: '/dashboard/automations/:id',
  checkout: '/dashboard/checkout',
  checkoutSession: '/dashboard/checkout/:id',
  // Pages of a signed-out visitor, reached from links in e-mails or the sign-in page (the e-mail
  // change link's page works signed in too).
  signUp: '/dashboard/sign-up',
  forgotPassword: '/dashboard/forgot-password',
  resetPassword: '/dashboard/reset-password',
  magicLink: '/dashboard/magic-link',
  emailChange: '/dashboard/email-change',
  // Where Google's callback brings the browser back, signed out (a sign-in) or in (an account connected).
  google: '/dashboard/google',
  invitation: '/dashboard/invitation',
} as const;

export type PageName = keyof typeof PATHS;

/** Where live's pages are: `/dashboard/live/payments` is the payments of live. */
const LIVE_PREFIX = '/dashboard/live';

/** The signed-out visitor's pages (links of e-mails, Google's return): of no environment, never under LIVE_PREFIX. */
const OF_NO_ENVIRONMENT: ReadonlySet<PageName> = new Set(['signUp', 'forgotPassword', 'resetPassword', 'magicLink', 'emailChange', 'google', 'invitation']);

/** A page and, for those with `:id`, the object it shows, in the environment of the address. */
export interface Route {
  page: PageName;
  id?: string;
  environment: Environment;
}

/** The address of `page` (and its object) in `environment`; by default the environment of the address shown now. */
export function pathOf(page: PageName, id?: string, environment: Environment = routeOf(window.location.pathname).environment): string {
  const path: string = PATHS[page];
  const sandboxPath = id === undefined ? path : path.replace(':id', encodeURIComponent(id));
  return environment === 'live' && !OF_NO_ENVIRONMENT.has(page) ? LIVE_PREFIX + sandboxPath.slice('/dashboard'.length) : sandboxPath;
}

/** The route of a path; an unknown path is the home page (of the path's environment). */
export function routeOf(pathname: string): Route {
  const trimmed = pathname.replace(/\/+$/, '') || '/';
  const live = trimmed === LIVE_PREFIX || trimmed.startsWith(`${LIVE_PREFIX}/`);
  const environment: Environment = live ? 'live' : 'sandbox';
  const path = live ? `/dashboard${trimmed.slice(LIVE_PREFIX.length)}` : trimmed;
  for (const [page, pattern] of Object.entries(PATHS) as [PageName, string][]) {
    const [prefix, hasId] = pattern.endsWith('/:id') ? [pattern.slice(0, -4), true] : [pattern.replace(/\/$/, ''), false];
    if (!hasId && path === prefix) return { page, environment };
    if (hasId && path.startsWith(`${prefix}/`) && !path.slice(prefix.length + 1).includes('/')) return { page, id: decodeURIComponent(path.slice(prefix.length + 1)), environment };
  }
  return { page: 'home', environment };
}

/**
 * The route the address shows, following links of the application and the browser's back and
 * forward: `go` moves to a page in the environment shown (or the one it is given), a new entry of
 * the history; `replace` puts another route in place of the one shown, with no new entry.
 */
export function useRoute(): [Route, (page: PageName, id?: string, environment?: Environment) => void, (page: PageName, id: string | undefined, environment: Environment) => void] {
  const [route, setRoute] = useState<Route>(() => routeOf(window.location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(routeOf(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const go = (page: PageName, id?: string, environment: Environment = route.environment) => {
    const path = pathOf(page, id, environment);
    if (path !== window.location.pathname) window.history.pushState(null, '', path);
    setRoute(routeOf(path));
    window.scrollTo(0, 0);
  };
  const replace = (page: PageName, id: string | undefined, environment: Environment) => {
    const path = pathOf(page, id, environment);
    window.history.replaceState(null, '', path);
    setRoute(routeOf(path));
  };
  return [route, go, replace];
}
