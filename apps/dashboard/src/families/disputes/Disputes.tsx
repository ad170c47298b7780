import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { Badge } from '../../shell/Badge.js';
import { CopyableId, CursorPager, FilterSelect, Link, QueryView, RowName, Scrollable, useCursorPages } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { DISPUTE_STATUSES, disputeMessages as messages, type DisputeStatus } from './disputes.messages.js';
import type { PageProps } from '../../shell/props.js';

/** Paystack's category of a dispute (`fraud`, `chargeback`…) as a phrase: the list of categories is Paystack's, not closed. */
export const reasonWords = (reason: string) => reason.replaceAll(/[_-]/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** The environment's disputes, newest first, 20 a page, by status. */
export function Disputes({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const [status, setStatus] = useState<DisputeStatus | ''>('');
  const pages = useCursorPages(`${environment}:${status}`);
  const disputes = useQuery({
    queryKey: ['disputes', environment, status, pages.after],
    queryFn: () => withSession(() => sika.get('/api/v1/disputes', { params: { query: { limit: 20, ...(status ? { status } : {}), ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut),
  });
  return (
    <main className="page">
      <h1 id="disputes">{t('title')}</h1>
      <p>{t('intro')}</p>
      <section aria-labelledby="disputes">
        <FilterSelect label={t('status')} value={status} values={DISPUTE_STATUSES} any={t('status.all')} words={(s) => t(`status.${s}`)} onChange={setStatus} />
        <QueryView query={disputes} isEmpty={(l) => l.data.length === 0} empty={t('none')}>
          {(l) => (
            <>
              <Scrollable labelledBy="disputes">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('reason')}</th>
                      <th scope="col">{t('amount')}</th>
                      <th scope="col">{t('status')}</th>
                      <th scope="col">{t('dueBy')}</th>
                      <th scope="col">{t('payment')}</th>
                      <th scope="col">{t('created')}</th>
                      <th scope="col">{t('dispute')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {l.data.map((d) => (
                      <tr key={d.id}>
                        <RowName to="dispute" id={d.id} name={reasonWords(d.reason)} />
                        <td className="amount">{formatAmount(language, d.amount, d.currency)}</td>
                        <td>
                          <Badge status={d.status}>{t(`status.${d.status}`)}</Badge>
                        </td>
                        <td>{d.evidence_due_by ? formatWhen(language, d.evidence_due_by) : t('dueBy.none')}</td>
                        <td>
                          <Link to="payment" id={d.payment_intent}>
                            <code>{d.payment_intent}</code>
                          </Link>
                        </td>
                        <td>{formatWhen(language, d.created, 'date')}</td>
                        <td>
                          <CopyableId id={d.id} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scrollable>
              <CursorPager pages={pages} label={t('pages')} hasMore={l.has_more} lastId={l.data.at(-1)?.id} />
            </>
          )}
        </QueryView>
      </section>
    </main>
  );
}
