import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState } from 'react';
import { CopyableId, CursorPager, QueryView, RowName, Scrollable, useCursorPages } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { checkoutMessages as messages, SESSION_STATUSES, sessionName, type SessionStatus } from './checkout.messages.js';
import type { PageProps } from '../../shell/props.js';

/** Checkout sessions of the environment shown, newest first, by status, page by page: each led by its description (its customer under it) or else its customer (opening its page), where its payment stands under its status, its hosted page's link and its id last. */
export function Checkout({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const [status, setStatus] = useState<SessionStatus | ''>('');
  const pages = useCursorPages(environment);
  const after = pages.after;
  const sessions = useQuery({
    queryKey: ['checkout-sessions', environment, status, after],
    queryFn: () => withSession(() => sika.get('/api/v1/checkout/sessions', { params: { query: { limit: 10, ...(status ? { status } : {}), ...(after ? { starting_after: after } : {}) } } }), onSignedOut),
  });

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <p>{t('intro')}</p>
      <section aria-labelledby="session-list">
        <h2 id="session-list">{t('list')}</h2>
        <label className="inline">
          {t('filter')}
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as SessionStatus | '');
              pages.reset();
            }}
          >
            <option value="">{t('filter.all')}</option>
            {SESSION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <QueryView query={sessions} isEmpty={(d) => !d.data?.length} empty={t('none')}>
          {(list) => (
            <>
              <Scrollable labelledBy="session-list">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('session')}</th>
                      <th scope="col">{t('amount')}</th>
                      <th scope="col">{t('status')}</th>
                      <th scope="col">{t('created')}</th>
                      <th scope="col">{t('page')}</th>
                      <th scope="col">{t('id')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(list.data ?? []).map((s) => (
                      <tr key={s.id}>
                        <RowName to="checkoutSession" id={s.id} name={sessionName(s, t('session'))} detail={s.description ? (s.customerEmail ?? s.customerPhone) : undefined} />
                        <td className="amount">{formatAmount(language, s.amount, s.currency)}</td>
                        <td>
                          <Badge status={s.status}>{t(`status.${s.status}`)}</Badge>
                          <span className="row-detail">{t(`payment.${s.paymentStatus}`)}</span>
                        </td>
                        <td>{formatWhen(language, s.created)}</td>
                        <td>
                          <a href={s.url} target="_blank" rel="noreferrer" aria-label={t('openPageOf', { id: s.id })}>
                            {t('openPage')}
                          </a>
                        </td>
                        <td>
                          <CopyableId id={s.id} />
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
      </section>
    </main>
  );
}
