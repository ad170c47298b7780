import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { SikaError } from '../../../clients/typescript/src/index.js';
import { useT } from './i18n.js';

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
