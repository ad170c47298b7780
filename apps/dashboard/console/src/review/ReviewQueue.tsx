import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { Badge } from '../../../src/shell/Badge.js';
import { CursorPager, QueryView, Scrollable, useCursorPages } from '../../../src/shell/components.js';
import { countryName } from '../../../src/shell/countries.js';
import { formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { Link, type ConsolePageProps } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { QUEUE_STATUSES, type QueueStatus } from './statuses.js';
import { reviewQueueMessages } from './reviewQueue.messages.js';

/**
 * The console's home: the applications of one status (those awaiting a decision unless the
 * reviewer picks another), oldest submission first, as the API orders the queue; each row opens
 * the application's page.
 */
export function ReviewQueue(_: ConsolePageProps) {
  const t = useConsoleT(reviewQueueMessages);
  const { language } = useContext(LanguageContext);
  const [status, setStatus] = useState<QueueStatus>('under_review');
  const pages = useCursorPages(status);
  const queue = useQuery({
    queryKey: ['operator-applications', status, pages.after],
    queryFn: () => api.get('/api/v1/operator/applications', { params: { query: { status, limit: 20, ...(pages.after ? { starting_after: pages.after } : {}) } } }),
  });
  return (
    <main className="page">
      <h1>{t('queue.title')}</h1>
      <p>{t('queue.intro')}</p>
      <label className="inline">
        {t('queue.status')}
        <select value={status} onChange={(e) => setStatus(e.target.value as QueueStatus)}>
          {QUEUE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`status.${s}`)}
            </option>
          ))}
        </select>
      </label>
      <h2 id="queue-list">{t('queue.list')}</h2>
      <QueryView query={queue} isEmpty={(d) => d.data.length === 0} empty={t(status === 'under_review' ? 'queue.empty.under_review' : 'queue.empty.other')}>
        {(list) => (
          <>
            <Scrollable labelledBy="queue-list">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('queue.business')}</th>
                    <th scope="col">{t('queue.country')}</th>
                    <th scope="col">{t('queue.type')}</th>
                    <th scope="col">{t('queue.state')}</th>
                    <th scope="col">{t('queue.submitted')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((a) => (
                    <tr key={a.merchantId}>
                      <th scope="row">
                        <Link to="application" id={a.merchantId}>
                          {a.legalName ?? a.merchantName ?? a.merchantId}
                        </Link>
                        {a.merchantName && a.merchantName !== a.legalName && <span className="row-detail">{a.merchantName}</span>}
                      </th>
                      <td>{a.country ? countryName(language, a.country) : '—'}</td>
                      <td>{a.businessType ? t(`type.${a.businessType}`) : '—'}</td>
                      <td>
                        <Badge status={a.status}>{t(`status.${a.status}`)}</Badge>
                      </td>
                      <td className="wrap">
                        {formatWhen(language, a.submittedAt)}
                        {a.submissions > 1 && <span className="row-detail">{t('queue.resubmitted', { n: a.submissions })}</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('queue.pages')} hasMore={list.has_more} lastId={list.data.at(-1)?.merchantId} />
          </>
        )}
      </QueryView>
    </main>
  );
}
