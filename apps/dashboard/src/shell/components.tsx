import { useMutation, useQuery, useQueryClient, type QueryKey, type UseQueryResult } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useState, type AnchorHTMLAttributes, type ReactNode } from 'react';
import { SikaError } from '../../../../clients/typescript/src/index.js';
import { useT } from './i18n.js';
import { pathOf, type PageName } from './router.js';
import { sika, withSession } from './session.js';

/** A query's answer as every page shows it: loading, the API's error, an empty message, or `children` with the data. */
export function QueryView<T>({ query, isEmpty, empty, children }: { query: UseQueryResult<T>; isEmpty?: (data: T) => boolean; empty?: string; children: (data: T) => ReactNode }) {
  const t = useT();
  if (query.isPending) return <p aria-busy="true">{t('loading')}</p>;
  if (query.isError) return <p role="alert">{query.error instanceof SikaError ? query.error.message : t('error.generic')}</p>;
  if (isEmpty?.(query.data)) return <p>{empty}</p>;
  return <>{children(query.data)}</>;
}

/**
 * Names each body cell of `table` by its column's header (`data-label`), which the narrow layout
 * shows beside the value when the rows become cards (styles.css, "Lists as cards"); a column of
 * amounts (cells of class `amount`) has its header right-aligned above them too.
 */
function labelCells(table: HTMLTableElement): void {
  const header = table.tHead?.rows[0];
  if (!header) return;
  const names: string[] = [];
  const headers: HTMLTableCellElement[] = [];
  for (const cell of Array.from(header.cells)) {
    for (let i = 0; i < cell.colSpan; i++) {
      names.push(cell.textContent?.trim() ?? '');
      headers.push(cell);
    }
  }
  const amounts = new Set<number>();
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let column = 0;
      for (const cell of Array.from(row.cells)) {
        const name = names[column] ?? '';
        if (name && cell.dataset.label !== name) cell.dataset.label = name;
        if (cell.classList.contains('amount')) amounts.add(column);
        column += cell.colSpan;
      }
    }
  }
  headers.forEach((cell, column) => {
    if (cell.colSpan === 1 && cell.classList.contains('amount') !== amounts.has(column)) cell.classList.toggle('amount', amounts.has(column));
  });
}

/**
 * A list's table: it scrolls inside its own region when wide (focusable, so the keyboard can
 * scroll it too), and on a narrow screen each row becomes a card whose cells are labelled by their
 * column's header. Every list of the application is one of these. `twoLine`: the narrow card is two
 * lines instead, who or what (the row's header) and the amount, then the status and the date (the
 * cells marked `data-card="amount" | "status" | "date"`); the other cells are on the object's page.
 */
export function Scrollable({ labelledBy, twoLine = false, children }: { labelledBy: string; twoLine?: boolean; children: ReactNode }) {
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = region.current;
    if (!element) return;
    const label = () => element.querySelectorAll('table').forEach(labelCells);
    label();
    // Rows come and go (a page, a filter, a refresh) and headers change language without this component rendering again.
    const observer = new MutationObserver(label);
    observer.observe(element, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div className={twoLine ? 'scroll two-line' : 'scroll'} role="region" aria-labelledby={labelledBy} tabIndex={0} ref={region}>
      {children}
    </div>
  );
}

/**
 * A list's filters: shown on a wide screen; folded behind a Filters button on a narrow one, so the
 * list starts near the top of a phone's screen.
 */
export function FoldedFilters({ id, children }: { id: string; children: ReactNode }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  return (
    <div className="folded-filters">
      <button type="button" className="fold-toggle secondary" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {t('filters.toggle')}
      </button>
      <div id={id} className={open ? 'fold open' : 'fold'}>
        {children}
      </div>
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

/**
 * Copies `text` to the clipboard and says so (to a screen reader too) for a few seconds. `compact`
 * is the small one beside an id in a list: an icon, named by `label` (which it then needs).
 */
export function CopyButton({ text, label, compact = false }: { text: string; label?: string; compact?: boolean }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 3000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <>
      <button type="button" className={compact ? 'copy-icon' : undefined} aria-label={label} onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}>
        {compact ? (
          <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
            <rect x="4.5" y="0.5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" />
            <path d="M2.5 3.5h-1a1 1 0 0 0-1 1v8a1 1 0 0 0 1 1h8a1 1 0 0 0 1-1v-1" fill="none" stroke="currentColor" />
          </svg>
        ) : (
          t('action.copy')
        )}
      </button>
      <span role="status" className="copied">
        {copied ? t('action.copied') : ''}
      </span>
    </>
  );
}

/**
 * An object's id as the lists show it: secondary (monospace, smaller), with a button that copies
 * it; with `to`, the id is also the link to the object's page (the button beside the link, not in it).
 */
export function CopyableId({ id, to }: { id: string; to?: PageName }) {
  const t = useT();
  return (
    <span className="copyable-id">
      {to ? (
        <Link to={to} id={id}>
          <code>{id}</code>
        </Link>
      ) : (
        <code>{id}</code>
      )}
      <CopyButton text={id} label={`${t('action.copyId')}: ${id}`} compact />
    </span>
  );
}

/**
 * A list's first cell, the row's header: what the merchant recognises the object by (a
 * description, a customer, a recipient), linking to its page, with an optional second line
 * (`detail`). The id goes last in the row, as a `CopyableId`: every list leads this way.
 */
export function RowName({ to, id, name, detail }: { to: PageName; id: string; name: string; detail?: ReactNode }) {
  return (
    <th scope="row">
      <Link to={to} id={id}>
        {name}
      </Link>
      {detail ? <span className="row-detail">{detail}</span> : null}
    </th>
  );
}

/** An object's page heading: what the merchant recognises it by, then its id (secondary, copyable). */
export function ObjectHeading({ name, id }: { name: ReactNode; id: string }) {
  return (
    <hgroup className="object-heading">
      <h1>{name}</h1>
      <p>
        <CopyableId id={id} />
      </p>
    </hgroup>
  );
}

/** What to tell the user about a failed call: the API's own message, else `generic`. */
export function errorText(err: unknown, generic: string): string {
  return err instanceof SikaError ? err.message : generic;
}

/** Whether a failure is the browser's passkey prompt closed, refused or timed out (WebAuthn's NotAllowedError), not an answer of the API. */
const isPasskeyNotUsed = (err: unknown) => err instanceof Error && (err.name === 'NotAllowedError' || (err.cause instanceof Error && err.cause.name === 'NotAllowedError'));

/** What to tell the user about any failure: the API's own message, a passkey that was not used, else a generic one. */
export function useFailureText(): (err: unknown) => string {
  const t = useT();
  return (err) => (isPasskeyNotUsed(err) ? t('passkey.notUsed') : errorText(err, t('error.generic')));
}

/** Whether a failure is live refusing money before the platform approved the account (IKW-ACT-005) or while it is suspended (IKW-ACT-006). */
export const liveClosedCode = (err: unknown): 'IKW-ACT-005' | 'IKW-ACT-006' | null => (err instanceof SikaError && (err.code === 'IKW-ACT-005' || err.code === 'IKW-ACT-006') ? err.code : null);

/**
 * A failure said where it happened (nothing when there is none). Given the failure itself
 * (`error`), live refusing money before activation or during a suspension is said in the
 * merchant's words with a link to the Go live page, which says what to do.
 */
export function ErrorMessage({ text, error }: { text: string | null; error?: unknown }) {
  const t = useT();
  const closed = liveClosedCode(error);
  if (closed)
    return (
      <p className="error" role="alert">
        {t(closed === 'IKW-ACT-005' ? 'live.closed' : 'live.suspended')} <Link to="goLive">{t(closed === 'IKW-ACT-005' ? 'live.apply' : 'live.why')}</Link>
      </p>
    );
  return text ? (
    <p className="error" role="alert">
      {text}
    </p>
  ) : null;
}

/**
 * A change the user asks for with a button or a form: `action.mutate(work)` runs `work` in the
 * session, then asks again for every query under `changes` (what the change, or its refusal, may
 * have moved); a failure is kept in `error`, in the API's words, until the next try. `submit(form,
 * send)` sends the form's data and empties the form as soon as the call succeeds, before the
 * queries are asked again: a reset after them would erase what was typed meanwhile.
 */
export function useAction(onSignedOut: () => void, changes: QueryKey[]) {
  const failureText = useFailureText();
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  // The failure itself, for ErrorMessage's words on live closed.
  const [failure, setFailure] = useState<unknown>(null);
  const action = useMutation({
    mutationFn: (work: () => Promise<unknown>) => withSession(work, onSignedOut),
    onMutate: () => {
      setError(null);
      setFailure(null);
    },
    onError: (err) => {
      setError(failureText(err));
      setFailure(err);
    },
    // A refusal may have changed something too (a refund the balance could not cover is kept as failed).
    onSettled: () => Promise.all(changes.map((queryKey) => queries.invalidateQueries({ queryKey }))),
  });
  const submit = (form: HTMLFormElement, send: (data: FormData) => Promise<unknown>) => {
    const data = new FormData(form);
    action.mutate(async () => {
      await send(data);
      form.reset();
    });
  };
  return { action, submit, error, setError, failure };
}

/** Whether a call failed because the object is not the caller's (or does not exist): retrying cannot help. */
export const isNotFound = (err: unknown) => err instanceof SikaError && err.status === 404;
/** A query's retry rule for one object's page: a 404 is the answer, not a failure to retry. */
export const retryUnlessNotFound = (count: number, err: Error) => !isNotFound(err) && count < 2;

/** The page of an object the API does not know in this environment (another merchant's id, a typo). */
export function NotFound({ title, message, back, backLabel }: { title: string; message: string; back: PageName; backLabel: string }) {
  return (
    <main className="page">
      <h1>{title}</h1>
      <p role="alert">{message}</p>
      <Link to={back}>{backLabel}</Link>
    </main>
  );
}

/**
 * The cursors of a cursor-paged list's pages before this one; `after` is this page's
 * `starting_after`. Cursors name objects of one `scope` (the environment): another scope starts
 * on the first page.
 */
export function useCursorPages(scope: string) {
  const [state, setState] = useState<{ scope: string; cursors: string[] }>({ scope, cursors: [] });
  // Another scope forgets the cursors (set while rendering, as React allows for state derived from props).
  if (state.scope !== scope) setState({ scope, cursors: [] });
  const cursors = state.scope === scope ? state.cursors : [];
  return {
    after: cursors.at(-1),
    isFirst: cursors.length === 0,
    reset: () => setState({ scope, cursors: [] }),
    next: (lastId: string) => setState({ scope, cursors: [...cursors, lastId] }),
    previous: () => setState({ scope, cursors: cursors.slice(0, -1) }),
  };
}

/** Previous / Next under a cursor-paged list. */
export function CursorPager({ pages, label, hasMore, lastId }: { pages: ReturnType<typeof useCursorPages>; label: string; hasMore: boolean; lastId: string | undefined }) {
  const t = useT();
  return (
    <nav className="actions" aria-label={label}>
      <button type="button" className="secondary" disabled={pages.isFirst} onClick={pages.previous}>
        {t('action.previous')}
      </button>
      <button type="button" className="secondary" disabled={!hasMore || !lastId} onClick={() => lastId && pages.next(lastId)}>
        {t('action.next')}
      </button>
    </nav>
  );
}

/** The time zone an export writes its times in: the browser's, which is where the merchant reads them. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * A list's "Export CSV": `csv(timeZone)` asks the API for every match of the list's filters (the
 * API streams it from its read model, with no limit of rows) and the browser saves it as `name`.
 */
export function CsvExport({ csv, name, onSignedOut }: { csv: (timeZone: string) => Promise<unknown>; name: string; onSignedOut: () => void }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const zone = browserTimeZone();
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      saveAsFile((await withSession(() => csv(zone), onSignedOut)) as string, name);
    } catch (err) {
      setError(errorText(err, t('error.generic')));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="export">
      <button type="button" className="secondary" onClick={() => void run()} disabled={busy} aria-describedby={`${name}-help`}>
        {busy ? t('export.busy') : t('export.csv')}
      </button>
      <span id={`${name}-help`} className="help">
        {t('export.help', { zone })}
      </span>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}

/** Saves `content` as a file the browser downloads (a CSV or a PDF the API answered). */
export function saveAsFile(content: string | Blob, name: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(content instanceof Blob ? content : new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Whether this session may make changes of `scope` (a write scope, held as itself or within `*`),
 * from the scopes /auth/me reports; undefined until known. A page leaves out what the API would
 * refuse, and says why.
 */
export function useCanWrite(scope: `${string}.write`, environment: string, onSignedOut: () => void): boolean | undefined {
  const me = useQuery({ queryKey: ['me', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/me'), onSignedOut) });
  const scopes = me.data?.scopes;
  return scopes === undefined ? undefined : scopes.includes('*') || scopes.includes(scope);
}

/** A list's filter: any, or one of `values`, each named by `words`. */
export function FilterSelect<V extends string>({
  label,
  value,
  values,
  any,
  words,
  onChange,
  inline = true,
}: {
  label: string;
  value: V | '';
  values: readonly V[];
  any: string;
  words: (value: V) => string;
  onChange: (value: V | '') => void;
  inline?: boolean;
}) {
  return (
    <label className={inline ? 'inline' : undefined}>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as V | '')}>
        <option value="">{any}</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {words(v)}
          </option>
        ))}
      </select>
    </label>
  );
}
