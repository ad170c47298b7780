import { useEffect, useState } from 'react';

/**
 * The application's pages, by path under /dashboard/. A page with `:id` in its path takes the
 * object it shows from the address, so a link to a payout or a payment can be shared.
 */
const PATHS = {
  home: '/dashboard/',
  payments: '/dashboard/payments',
  payment: '/dashboard/payments/:id',
  paymentLinks: '/dashboard/payment-links',
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
  files: '/dashboard/files',
  configuration: '/dashboard/configuration',
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

/** A page and, for those with `:id`, the object it shows. */
export interface Route {
  page: PageName;
  id?: string;
}

export function pathOf(page: PageName, id?: string): string {
  const path: string = PATHS[page];
  return id === undefined ? path : path.replace(':id', encodeURIComponent(id));
}

/** The route of a path; an unknown path is the home page. */
export function routeOf(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  for (const [page, pattern] of Object.entries(PATHS) as [PageName, string][]) {
    const [prefix, hasId] = pattern.endsWith('/:id') ? [pattern.slice(0, -4), true] : [pattern.replace(/\/$/, ''), false];
    if (!hasId && path === prefix) return { page };
    if (hasId && path.startsWith(`${prefix}/`) && !path.slice(prefix.length + 1).includes('/')) return { page, id: decodeURIComponent(path.slice(prefix.length + 1)) };
  }
  return { page: 'home' };
}

/** The route the address shows, following links of the application and the browser's back and forward. */
export function useRoute(): [Route, (page: PageName, id?: string) => void] {
  const [route, setRoute] = useState<Route>(() => routeOf(window.location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(routeOf(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const go = (page: PageName, id?: string) => {
    const path = pathOf(page, id);
    if (path !== window.location.pathname) window.history.pushState(null, '', path);
    setRoute({ page, ...(id === undefined ? {} : { id }) });
    window.scrollTo(0, 0);
  };
  return [route, go];
}
