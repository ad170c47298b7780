import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { CopyableId, CsvExport, CursorPager, Link, QueryView, Scrollable, useCursorPages } from '../../shell/components.js';
import { utcDay } from '../../shell/days.js';
import { createdBetween, ListFilters } from '../../shell/listFilters.js';
import { StatusCell } from '../../shell/failures.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import type { PageProps } from '../../shell/props.js';
import { sika, withSession } from '../../shell/session.js';
import { REFUND_STATUSES, refundMessages as messages, type RefundStatus } from './refunds.messages.js';

interface Filters {
  status: RefundStatus | '';
  from: string;
  to: string;
}

const NO_FILTER: Filters = { status: '', from: '', to: '' };

/** The API's query for `filters`: days are UTC days, the `to` day included. */
function queryOf(f: Filters) {
  return { ...(f.status ? { status: f.status } : {}), ...createdBetween(f.from, f.to) };
}

/** The refunds of every payment of the environment, newest first, filtered by status and UTC days; exported as CSV with the same filters. */
export function Refunds({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const [filters, setFilters] = useState<Filters>(NO_FILTER);
  const pages = useCursorPages(`${environment}:${JSON.stringify(filters)}`);
  const refunds = useQuery({
    queryKey: ['refunds', environment, filters, pages.after],
    queryFn: async () => {
      const list = await withSession(() => sika.get('/api/v1/merchant/refunds', { params: { query: { limit: 20, ...queryOf(filters), ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut);
      // The route also answers CSV (the export), which this request does not ask for.
      return typeof list === 'string' ? { data: [], has_more: false } : list;
    },
  });
  return (
    <main className="page">
      <h1 id="refunds-title">{t('title')}</h1>
      <ListFilters
        id="refunds-filters"
        label={t('filters')}
        status={{ label: t('status'), values: REFUND_STATUSES, words: (s) => t(`status.${s}`) }}
        onApply={(field) => setFilters({ status: field('status') as RefundStatus | '', from: field('from'), to: field('to') })}
        onClear={() => setFilters(NO_FILTER)}
      />
      <CsvExport
        name={`refunds-${environment}-${utcDay(Date.now())}.csv`}
        onSignedOut={onSignedOut}
        csv={(timeZone) => sika.get('/api/v1/merchant/refunds', { params: { query: { ...queryOf(filters), time_zone: timeZone } }, headers: { Accept: 'text/csv' }, parseAs: 'text' })}
      />
      <QueryView query={refunds} isEmpty={(d) => !d.data?.length} empty={t('none')}>
        {(list) => (
          <>
            <Scrollable labelledBy="refunds-title" twoLine>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('payment')}</th>
                    <th scope="col">{t('amount')}</th>
                    <th scope="col">{t('reason')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('created')}</th>
                    <th scope="col">{t('refund')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(list.data ?? []).map((r) => (
                    <tr key={r.id}>
                      <th scope="row">
                        <Link to="payment" id={r.payment_intent}>
                          <code>{r.payment_intent}</code>
                        </Link>
                      </th>
                      <td className="amount" data-card="amount">
                        {formatAmount(language, r.amount, r.currency)}
                      </td>
                      <td>{r.reason ? t(`reason.${r.reason}`) : t('noReason')}</td>
                      <StatusCell status={r.status} word={t(`status.${r.status}`)} failure={r.status === 'failed' && !!r.failure_code && { subject: 'refund', code: r.failure_code, message: r.failure_message }} />
                      <td data-card="date">{formatWhen(language, r.created)}</td>
                      <td>
                        <CopyableId id={r.id} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('pages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </main>
  );
}
