import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState } from 'react';
import { CursorPager, ErrorMessage, isNotFound, Link, NotFound, ObjectHeading, QueryView, retryUnlessNotFound, Scrollable, useAction, useCanWrite, useCursorPages } from '../../shell/components.js';
import { useCatalogNames } from '../../shell/countries.js';
import { destinationText } from '../../shell/destinations.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { BATCH_STATUSES, batchMessages, ITEM_STATUSES, LOG_STEPS, useBatchName, type BatchStatus, type ItemStatus, type LogStep } from './payoutBatches.messages.js';
import type { PageProps } from '../../shell/props.js';

/** While a batch executes its page asks again this often: its progress and log move by themselves. */
const FOLLOW_MS = 1000;
const FINAL_BATCHES: readonly BatchStatus[] = ['completed', 'partially_failed', 'failed', 'canceled'];
const FINAL_ITEMS: readonly ItemStatus[] = ['validated', 'paid', 'failed', 'canceled'];

/** One payout batch: its totals, execute (reviewed first) with a progress bar, cancel, retry, its payouts, and its execution log as it grows. */
export function PayoutBatchPage({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(batchMessages);
  const batchName = useBatchName();
  const names = useCatalogNames(onSignedOut);
  const { language } = useContext(LanguageContext);
  const batchId = id ?? '';
  const [reviewing, setReviewing] = useState(false);
  const canPayOut = useCanWrite('payouts.write', environment, onSignedOut);
  const itemPages = useCursorPages(`${environment}:${batchId}`);

  const batch = useQuery({
    queryKey: ['payout-batches', environment, batchId],
    queryFn: () => withSession(() => sika.get('/api/v1/payout-engine/batches/{batchId}', { params: { path: { batchId } } }), onSignedOut),
    retry: retryUnlessNotFound,
    refetchInterval: (q) => (q.state.data?.status === 'executing' ? FOLLOW_MS : false),
  });
  const following = batch.data?.status === 'executing';
  const finished = batch.data !== undefined && FINAL_BATCHES.includes(batch.data.status as BatchStatus);
  const items = useQuery({
    queryKey: ['payout-batches', environment, batchId, 'items', itemPages.after],
    queryFn: () =>
      withSession(
        () =>
          sika.get('/api/v1/payout-engine/batches/{batchId}/items', {
            params: { path: { batchId }, query: { limit: 100, ...(itemPages.after !== undefined ? { starting_after: Number(itemPages.after) } : {}) } },
          }),
        onSignedOut,
      ),
    enabled: batch.isSuccess,
    // The items' read model may catch up a moment after the batch's: followed until each is final.
    refetchInterval: (q) => (following || (finished && q.state.data?.data?.some((i) => !FINAL_ITEMS.includes(i.status as ItemStatus))) ? FOLLOW_MS : false),
  });
  const log = useInfiniteQuery({
    queryKey: ['payout-batches', environment, batchId, 'log'],
    queryFn: ({ pageParam }) =>
      withSession(() => sika.get('/api/v1/payout-engine/batches/{batchId}/execution-logs', { params: { path: { batchId }, query: { limit: 100, ...(pageParam ? { starting_after: pageParam } : {}) } } }), onSignedOut),
    initialPageParam: '',
    getNextPageParam: (last) => (last.has_more ? last.data?.at(-1)?.id : undefined),
    enabled: batch.isSuccess,
    // Followed until it shows the batch's last step, which its read model may record a moment after the batch's.
    refetchInterval: (q) => (following || (finished && !q.state.data?.pages.some((p) => p.data?.some((e) => e.type === `payout_batch.${batch.data?.status}`))) ? FOLLOW_MS : false),
  });
  const { action, error } = useAction(onSignedOut, [
    ['payout-batches', environment],
    ['balance', environment],
    ['balance-summaries', environment],
    ['balance-transactions', environment],
    ['payouts', environment],
  ]);
  const act = (verb: 'execute' | 'cancel' | 'retry') => action.mutate(() => sika.post(`/api/v1/payout-engine/batches/{batchId}/${verb}`, { params: { path: { batchId } } }), { onSettled: () => setReviewing(false) });

  // A log entry's status is its batch's after a batch step, its payout's after a payout's.
  const statusWords = (type: string, status: string) =>
    type.startsWith('payout_batch.') && (BATCH_STATUSES as readonly string[]).includes(status) ? t(`status.${status as BatchStatus}`) : (ITEM_STATUSES as readonly string[]).includes(status) ? t(`item.${status as ItemStatus}`) : status;

  if (batch.isError && isNotFound(batch.error)) return <NotFound title={t('batch')} message={t('notFound')} back="payoutBatches" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="payoutBatches">{t('back')}</Link>
      </p>
      <QueryView query={batch}>
        {(b) => {
          const done = (b.counts.paid ?? 0) + (b.counts.failed ?? 0) + (b.counts.canceled ?? 0);
          const status = b.status as BatchStatus;
          return (
            <>
              <ObjectHeading name={`${batchName(b.item_count)} · ${formatAmount(language, b.total_amount, b.currency)}`} id={b.id} />
              <dl className="facts">
                <dt>{t('status')}</dt>
                <dd>
                  <Badge status={status}>{t(`status.${status}`)}</Badge>
                </dd>
                <dt>{t('items')}</dt>
                <dd>{b.item_count}</dd>
                <dt>{t('total')}</dt>
                <dd>{formatAmount(language, b.total_amount, b.currency)}</dd>
                <dt>{t('fees')}</dt>
                <dd>{formatAmount(language, b.total_fee, b.currency)}</dd>
                <dt>{t('created')}</dt>
                <dd>{formatWhen(language, b.created)}</dd>
                <dt>{t('executedAt')}</dt>
                <dd>{formatWhen(language, b.executed_at)}</dd>
                <dt>{t('finishedAt')}</dt>
                <dd>{formatWhen(language, b.finished_at ?? b.canceled_at)}</dd>
              </dl>
              {status !== 'validated' && (
                <p>
                  <progress max={b.item_count} value={done} aria-label={t('progress')} />{' '}
                  <span role="status">{t('progressText', { done, all: b.item_count, paid: b.counts.paid ?? 0, failed: b.counts.failed ?? 0, canceled: b.counts.canceled ?? 0 })}</span>
                </p>
              )}
              <ErrorMessage text={error} />
              {canPayOut === false ? (
                <p className="notice">{t('payouts.cannot')}</p>
              ) : reviewing ? (
                <div className="panel" role="group" aria-labelledby="batch-review">
                  <h2 id="batch-review">{t('executeReview')}</h2>
                  <p>{t('executeHold', { total: formatAmount(language, b.total_amount, b.currency), fees: formatAmount(language, b.total_fee, b.currency) })}</p>
                  <div className="actions">
                    <button type="button" disabled={action.isPending} onClick={() => act('execute')}>
                      {t('executeConfirm')}
                    </button>
                    <button type="button" className="secondary" onClick={() => setReviewing(false)}>
                      {t('action.cancel')}
                    </button>
                  </div>
                </div>
              ) : (
                <div className="actions">
                  {status === 'validated' && (
                    <button type="button" onClick={() => setReviewing(true)}>
                      {t('execute')}
                    </button>
                  )}
                  {(status === 'partially_failed' || status === 'failed') && (b.counts.failed ?? 0) > 0 && (
                    <button type="button" disabled={action.isPending} onClick={() => act('retry')}>
                      {t('retry')}
                    </button>
                  )}
                  {(status === 'validated' || status === 'executing') && (
                    <button type="button" className="secondary" disabled={action.isPending} onClick={() => window.confirm(t('cancelConfirm')) && act('cancel')}>
                      {t('cancelBatch')}
                    </button>
                  )}
                </div>
              )}

              <section aria-labelledby="batch-items">
                <h2 id="batch-items">{t('itemsTitle')}</h2>
                <QueryView query={items}>
                  {(list) => (
                    <>
                      <Scrollable labelledBy="batch-items">
                        <table>
                          <thead>
                            <tr>
                              <th scope="col">{t('index')}</th>
                              <th scope="col">{t('reference')}</th>
                              <th scope="col">{t('destination')}</th>
                              <th scope="col">{t('amount')}</th>
                              <th scope="col">{t('fee')}</th>
                              <th scope="col">{t('status')}</th>
                              <th scope="col">{t('payout')}</th>
                            </tr>
                          </thead>
                          <tbody>
                            {(list.data ?? []).map((item) => (
                              <tr key={item.index}>
                                <th scope="row">{item.index + 1}</th>
                                <td>{item.reference ?? '—'}</td>
                                <td>{destinationText(item.destination, names)}</td>
                                <td className="amount">{formatAmount(language, item.amount, item.currency ?? b.currency)}</td>
                                <td className="amount">{formatAmount(language, item.fee, item.currency ?? b.currency)}</td>
                                <td>
                                  <Badge status={item.status}>{t(`item.${item.status as ItemStatus}`)}</Badge>
                                  {item.failure_code ? ` · ${item.failure_code}` : ''}
                                </td>
                                <td>
                                  {item.payout_id ? (
                                    <Link to="payout" id={item.payout_id}>
                                      <code>{item.payout_id}</code>
                                    </Link>
                                  ) : (
                                    '—'
                                  )}
                                </td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </Scrollable>
                      {(list.has_more || !itemPages.isFirst) && <CursorPager pages={itemPages} label={t('morePayouts')} hasMore={list.has_more === true} lastId={list.data?.at(-1)?.index.toString()} />}
                    </>
                  )}
                </QueryView>
              </section>

              <section aria-labelledby="batch-log">
                <h2 id="batch-log">{t('log')}</h2>
                <QueryView query={log} isEmpty={(l) => !l.pages[0]?.data?.length} empty={t('logNone')}>
                  {(l) => (
                    <>
                      <Scrollable labelledBy="batch-log">
                        <table>
                          <thead>
                            <tr>
                              <th scope="col">{t('when')}</th>
                              <th scope="col">{t('step')}</th>
                              <th scope="col">{t('index')}</th>
                              <th scope="col">{t('status')}</th>
                              <th scope="col">{t('amount')}</th>
                              <th scope="col">{t('failure')}</th>
                            </tr>
                          </thead>
                          <tbody>
                            {l.pages
                              .flatMap((p) => p.data ?? [])
                              .map((entry) => (
                                <tr key={entry.id}>
                                  <td>{formatWhen(language, entry.created, 'second')}</td>
                                  <th scope="row">{(LOG_STEPS as readonly string[]).includes(entry.type) ? t(`step.${entry.type as LogStep}`) : entry.type}</th>
                                  <td>{entry.item_index == null ? '—' : entry.item_index + 1}</td>
                                  <td>
                                    <Badge status={entry.status}>{statusWords(entry.type, entry.status)}</Badge>
                                  </td>
                                  <td className="amount">{entry.amount == null ? '—' : formatAmount(language, entry.amount, b.currency)}</td>
                                  <td>{entry.failure_code ?? '—'}</td>
                                </tr>
                              ))}
                          </tbody>
                        </table>
                      </Scrollable>
                      {log.hasNextPage && (
                        <button type="button" className="secondary" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
                          {t('action.next')}
                        </button>
                      )}
                    </>
                  )}
                </QueryView>
              </section>
            </>
          );
        }}
      </QueryView>
    </main>
  );
}
