import { useEffect, useState } from 'react';

/** The application's pages, by path under /dashboard/. */
export type PageName = 'home' | 'payouts' | 'developers';

const PATHS: Record<PageName, string> = { home: '/dashboard/', payouts: '/dashboard/payouts', developers: '/dashboard/developers' };

export function pathOf(page: PageName): string {
  return PATHS[page];
}

function current(): PageName {
  const path = window.location.pathname.replace(/\/+$/, '/');
  if (path.startsWith('/dashboard/developers')) return 'developers';
  if (path.startsWith('/dashboard/payouts')) return 'payouts';
  return 'home';
}

/** The page the address shows, following links of the application and the browser's back and forward. */
export function usePage(): [PageName, (page: PageName) => void] {
  const [page, setPage] = useState<PageName>(current);
  useEffect(() => {
    const onPop = () => setPage(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const go = (next: PageName) => {
    if (next !== page) window.history.pushState(null, '', PATHS[next]);
    setPage(next);
  };
  return [page, go];
}
