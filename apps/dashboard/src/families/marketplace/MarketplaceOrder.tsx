import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, type FormEvent } from 'react';
import { ErrorMessage, isNotFound, Link, NotFound, QueryView, retryUnlessNotFound, Scrollable, useAction } from '../../shell/components.js';
import { formatAmount, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { marketplaceMessages as messages } from './marketplace.messages.js';
import type { PageProps } from '../../shell/props.js';

/** One marketplace order: its lines, the sellers' shares and the commission, its payment, refunds (and a refund), cancel. */
export function MarketplaceOrder({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const { action: call, error } = useAction(onSignedOut, [['marketplace', environment]]);
  const orderId = id ?? '';
  const key = ['marketplace', environment, 'order', orderId];
  const order = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => sika.get('/api/v1/marketplace/orders/{id}', { params: { path: { id: orderId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const refunds = useQuery({
    queryKey: [...key, 'refunds'],
    queryFn: () => withSession(() => sika.get('/api/v1/marketplace/refunds', { params: { query: { orderId, limit: 100 } } }), onSignedOut),
    enabled: order.isSuccess,
  });

  if (order.isError && isNotFound(order.error)) return <NotFound title={t('order')} message={t('notFound')} back="marketplace" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="marketplace">{t('back')}</Link>
      </p>
      <QueryView query={order}>
        {(o) => {
          const money = (minor: number | null | undefined) => formatAmount(language, minor ?? 0, o.currency);
          return (
            <>
              <h1>
                {t('order')} {o.buyerName ?? <code>{o.id}</code>}
              </h1>
              <ErrorMessage text={error} />
              <dl className="facts">
                <dt>{t('status')}</dt>
                <dd>
                  <Badge status={o.status}>{t(`status.${o.status}`)}</Badge>
                </dd>
                <dt>{t('amount')}</dt>
                <dd>{money(o.amountMinor)}</dd>
                <dt>{t('commission')}</dt>
                <dd>{money(o.commissionMinor)}</dd>
                <dt>{t('refunded')}</dt>
                <dd>{money(o.refundedMinor)}</dd>
                <dt>{t('payment')}</dt>
                <dd>
                  <Link to="payment" id={o.paymentIntentId}>
                    {o.paymentIntentId}
                  </Link>
                </dd>
              </dl>
              <section aria-labelledby="lines">
                <h2 id="lines">{t('lines')}</h2>
                <Scrollable labelledBy="lines">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">{t('seller')}</th>
                        <th scope="col">{t('amount')}</th>
                        <th scope="col">{t('commission')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {o.lines.map((line, n) => (
                        <tr key={n}>
                          <th scope="row">{line.sellerId}</th>
                          <td className="amount">{money(line.amountMinor)}</td>
                          <td className="amount">{money(line.commissionMinor)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </Scrollable>
              </section>
              <section aria-labelledby="shares">
                <h2 id="shares">{t('shares')}</h2>
                <ul>
                  {o.sellerShares.map((share) => (
                    <li key={share.sellerId}>
                      {share.sellerId}: {money(share.amountMinor)}
                    </li>
                  ))}
                </ul>
              </section>
              <section aria-labelledby="order-refunds">
                <h2 id="order-refunds">{t('refunds')}</h2>
                {(o.status === 'paid' || o.status === 'partially_refunded') && (
                  <form
                    className="inline-form"
                    aria-label={t('refund')}
                    onSubmit={(e: FormEvent<HTMLFormElement>) => {
                      e.preventDefault();
                      const data = new FormData(e.currentTarget);
                      const amount = String(data.get('amount') ?? '');
                      const reason = String(data.get('reason') ?? '').trim();
                      call.mutate(() => sika.post('/api/v1/marketplace/refunds', { body: { orderId: o.id, ...(amount ? { amountMinor: minorUnits(Number(amount), o.currency) } : {}), ...(reason ? { reason } : {}) } }));
                    }}
                  >
                    <label>
                      {t('refundAmount')}
                      <input name="amount" type="number" min="0" step="any" />
                    </label>
                    <label>
                      {t('refundReason')}
                      <input name="reason" maxLength={1000} />
                    </label>
                    <button type="submit" disabled={call.isPending}>
                      {t('refund')}
                    </button>
                  </form>
                )}
                <QueryView query={refunds} isEmpty={(r) => !r.data?.length} empty={t('refunds.none')}>
                  {(r) => (
                    <ul>
                      {((r.data ?? []) as { id: string; amountMinor: number; reason?: string | null }[]).map((refund) => (
                        <li key={refund.id}>
                          {money(refund.amountMinor)}
                          {refund.reason ? ` — ${refund.reason}` : ''}
                        </li>
                      ))}
                    </ul>
                  )}
                </QueryView>
              </section>
              {o.status === 'requires_payment' && (
                <button type="button" className="secondary" onClick={() => call.mutate(() => sika.post('/api/v1/marketplace/orders/{id}/cancel', { params: { path: { id: o.id } } }))}>
                  {t('cancelOrder')}
                </button>
              )}
            </>
          );
        }}
      </QueryView>
    </main>
  );
}
