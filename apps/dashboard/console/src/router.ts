import { useEffect, useState } from 'react';

/**
 * The console's pages, by path under /console/; a page with `:id` takes its object from the address,
 * so a link to a merchant or an application can be shared between operators.
 */
const PATHS = {
  // The review queue: where most operators' day starts.
  home: '/console/',
  merchants: '/console/merchants',
  merchant: '/console/merchants/:id',
  application: '/console/applications/:id',
  rails: '/console/rails',
  reconciliation: '/console/reconciliation',
  reconciliationRun: '/console/reconciliation/:id',
  team: '/console/team',
  // Payouts the merchants' risk rules held for review (the risk team's).
  heldPayouts: '/console/held-payouts',
  // The platform's risk rules, which every merchant is asked of (docs/risk.md).
  riskRules: '/console/risk-rules',
  // The signed-in operator's own passkeys.
  security: '/console/security',
  // The invitation e-mail's link (`bin/sika operator users create`, or an admin's invitation): signed out.
  invitation: '/console/invitation',
} as const;

export type ConsolePageName = keyof typeof PATHS;

export interface ConsoleRoute {
  page: ConsolePageName;
  id?: string;
}

/** The address of `page` (and its object). */
export function pathOf(page: ConsolePageName, id?: string): string {
  const path: string = PATHS[page];
  return id === undefined ? path : path.replace(':id', encodeURIComponent(id));
}

/** The route of a path; an unknown path is the home page. */
export function routeOf(pathname: string): ConsoleRoute {
  const path = pathname.replace(/\/+$/, '') || '/';
  for (const [page, pattern] of Object.entries(PATHS) as [ConsolePageName, string][]) {
    const [prefix, hasId] = pattern.endsWith('/:id') ? [pattern.slice(0, -4), true] : [pattern.replace(/\/$/, ''), false];
    if (!hasId && path === prefix) return { page };
    if (hasId && path.startsWith(`${prefix}/`) && !path.slice(prefix.length + 1).includes('/')) return { page, id: decodeURIComponent(path.slice(prefix.length + 1)) };
  }
  return { page: 'home' };
}

/** The route the address shows, following the console's links and the browser's back and forward. */
export function useRoute(): [ConsoleRoute, (page: ConsolePageName, id?: string) => void] {
  const [route, setRoute] = useState<ConsoleRoute>(() => routeOf(window.location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(routeOf(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const go = (page: ConsolePageName, id?: string) => {
    const path = pathOf(page, id);
    if (path !== window.location.pathname + window.location.search) window.history.pushState(null, '', path);
    setRoute(routeOf(path));
    window.scrollTo(0, 0);
  };
  return [route, go];
}
