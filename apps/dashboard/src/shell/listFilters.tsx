import type { ReactNode } from 'react';
import { FoldedFilters } from './components.js';
import { dayStartMs, DAY_MS } from './days.js';
import { useT } from './i18n.js';

/** The API's `created` filters of a range of UTC days (`YYYY-MM-DD`, either may be empty), the `to` day included. */
export function createdBetween(from: string, to: string): { 'created[gte]'?: number; 'created[lt]'?: number } {
  return {
    ...(from ? { 'created[gte]': Math.floor(dayStartMs(from) / 1000) } : {}),
    ...(to ? { 'created[lt]': Math.floor((dayStartMs(to) + DAY_MS) / 1000) } : {}),
  };
}

/**
 * The filters of a list that exports what it shows (Payments, Refunds): a search form folded behind
 * a button on a phone, with a choice of status, a range of UTC days (fields `status`, `from`,
 * `to`) and the page's own fields (`children`). Apply gives each field's value by its name; Clear
 * empties them and calls `onClear`.
 */
export function ListFilters<S extends string>({
  id,
  label,
  status,
  onApply,
  onClear,
  children,
}: {
  id: string;
  label: string;
  status: { label: string; values: readonly S[]; words: (status: S) => string };
  onApply: (field: (name: string) => string) => void;
  onClear: () => void;
  children?: ReactNode;
}) {
  const t = useT();
  return (
    <FoldedFilters id={id}>
      <form
        className="inline-form"
        role="search"
        aria-label={label}
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          onApply((name) => String(data.get(name) ?? ''));
        }}
        onReset={onClear}
      >
        <label>
          {status.label}
          <select name="status" defaultValue="">
            <option value="">{t('filters.anyStatus')}</option>
            {status.values.map((s) => (
              <option key={s} value={s}>
                {status.words(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('filters.from')}
          <input name="from" type="date" />
        </label>
        <label>
          {t('filters.to')}
          <input name="to" type="date" />
        </label>
        {children}
        <div className="actions">
          <button type="submit">{t('filters.apply')}</button>
          <button type="reset" className="secondary">
            {t('filters.clear')}
          </button>
        </div>
      </form>
    </FoldedFilters>
  );
}
