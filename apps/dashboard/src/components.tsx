import type { UseQueryResult } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useState, type AnchorHTMLAttributes, type ReactNode } from 'react';
import { SikaError } from '../../../clients/typescript/src/index.js';
import { useT } from './i18n.js';
import { pathOf, type PageName } from './router.js';

/** A query's answer as every page shows it: loading, the API's error, an empty message, or `children` with the data. */
export function QueryView<T>({ query, isEmpty, empty, children }: { query: UseQueryResult<T>; isEmpty?: (data: T) => boolean; empty?: string; children: (data: T) => ReactNode }) {
  const t = useT();
  if (query.isPending) return <p aria-busy="true">{t('loading')}</p>;
  if (query.isError) return <p role="alert">{query.error instanceof SikaError ? query.error.message : t('error.generic')}</p>;
  if (isEmpty?.(query.data)) return <p>{empty}</p>;
  return <>{children(query.data)}</>;
}

/** A wide table that scrolls inside its own region, focusable so the keyboard can scroll it too. */
export function Scrollable({ labelledBy, children }: { labelledBy: string; children: ReactNode }) {
  return (
    <div className="scroll" role="region" aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </div>
  );
}

/** Moves to another page of the application (App's router). */
export const NavigationContext = createContext<(page: PageName, id?: string) => void>(() => undefined);

/** A link to a page of the application: a real address (opens in a new tab too), followed without a reload. */
export function Link({ to, id, children, ...rest }: { to: PageName; id?: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const go = useContext(NavigationContext);
  return (
    <a
      {...rest}
      href={pathOf(to, id)}
      onClick={(e) => {
        rest.onClick?.(e);
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        go(to, id);
      }}
    >
      {children}
    </a>
  );
}

/** Copies `text` to the clipboard and says so (to a screen reader too) for a few seconds. */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 3000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <>
      <button type="button" aria-label={label} onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}>
        {t('action.copy')}
      </button>
      <span role="status" className="copied">
        {copied ? t('action.copied') : ''}
      </span>
    </>
  );
}
