import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { Badge } from '../../../src/shell/Badge.js';
import { CopyableId, CursorPager, QueryView, Scrollable, useCursorPages } from '../../../src/shell/components.js';
import { formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { Link, type ConsolePageProps } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { APPLICATION_STATUSES, type ApplicationStatus } from './statuses.js';
import { merchantsMessages } from './merchants.messages.js';

interface Filters {
  search: string;
  status: ApplicationStatus | '';
}

const NO_FILTERS: Filters = { search: '', status: '' };

const isApplicationStatus = (s: string): s is ApplicationStatus => (APPLICATION_STATUSES as readonly string[]).includes(s);

/** The filters in the address (`?search=…&status=…`), so going back from a merchant's page finds the list as it was. */
function filtersOfAddress(): Filters {
  const query = new URLSearchParams(window.location.search);
  const status = query.get('status') ?? '';
  return { search: query.get('search') ?? '', status: isApplicationStatus(status) ? status : '' };
}

function keepInAddress(f: Filters) {
  const query = new URLSearchParams({ ...(f.search ? { search: f.search } : {}), ...(f.status ? { status: f.status } : {}) }).toString();
  window.history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}`);
}

/** Every merchant of the platform, newest first: searched by name, e-mail or id, filtered by where its application stands. */
export function Merchants(_: ConsolePageProps) {
  const t = useConsoleT(merchantsMessages);
  const { language } = useContext(LanguageContext);
  const [filters, setFiltersState] = useState<Filters>(filtersOfAddress);
  // What the form holds until Search applies it.
  const [draft, setDraft] = useState<Filters>(filters);
  const setFilters = (f: Filters) => {
    keepInAddress(f);
    setFiltersState(f);
  };
  const pages = useCursorPages(JSON.stringify(filters));
  const merchants = useQuery({
    queryKey: ['operator-merchants', filters, pages.after],
    queryFn: () =>
      api.get('/api/v1/operator/merchants', {
        params: {
          query: {
            limit: 20,
            ...(filters.search.trim() ? { search: filters.search.trim() } : {}),
            ...(filters.status ? { application_status: filters.status } : {}),
            ...(pages.after ? { starting_after: pages.after } : {}),
          },
        },
      }),
  });
  const filtered = filters.search.trim() !== '' || filters.status !== '';
  return (
    <main className="page">
      <h1 id="merchants-title">{t('console.nav.merchants')}</h1>
      <form
        className="inline-form"
        role="search"
        aria-label={t('merchants.search')}
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
        onReset={(e) => {
          e.preventDefault();
          setDraft(NO_FILTERS);
          setFilters(NO_FILTERS);
        }}
      >
        <label>
          {t('merchants.searchBox')}
          <input name="search" type="search" maxLength={200} value={draft.search} onChange={(e) => setDraft({ ...draft, search: e.target.value })} />
        </label>
        <label>
          {t('merchants.applicationStatus')}
          <select name="status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: isApplicationStatus(e.target.value) ? e.target.value : '' })}>
            <option value="">{t('merchants.anyStatus')}</option>
            {APPLICATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`merchant.application.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <div className="actions">
          <button type="submit">{t('merchants.find')}</button>
          <button type="reset" className="secondary">
            {t('merchants.clear')}
          </button>
        </div>
      </form>
      <QueryView query={merchants} isEmpty={(d) => !d.data?.length} empty={t(filtered ? 'merchants.noMatch' : 'merchants.none')}>
        {(list) => (
          <>
            <Scrollable labelledBy="merchants-title">
              <table className="merchants">
                <thead>
                  <tr>
                    <th scope="col">{t('merchants.name')}</th>
                    <th scope="col">{t('merchants.email')}</th>
                    <th scope="col">{t('merchants.applicationStatus')}</th>
                    <th scope="col">{t('merchants.live')}</th>
                    <th scope="col">{t('merchants.created')}</th>
                    <th scope="col">{t('merchants.id')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(list.data ?? []).map((m) => (
                    <tr key={m.id}>
                      <th scope="row">
                        <Link to="merchant" id={m.id}>
                          {m.name}
                        </Link>
                      </th>
                      <td>{m.email ?? '—'}</td>
                      <td>
                        <Badge status={m.applicationStatus}>{t(`merchant.application.${m.applicationStatus}`)}</Badge>
                      </td>
                      <td>
                        <Badge status={m.liveStatus}>{t(`merchant.live.${m.liveStatus}`)}</Badge>
                      </td>
                      <td>{formatWhen(language, m.created)}</td>
                      <td>
                        <CopyableId id={m.id} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('merchants.pages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </main>
  );
}
