import { useQueries, useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState } from 'react';
import { CopyButton, ErrorMessage, isNotFound, Link, NotFound, ObjectHeading, QueryView, retryUnlessNotFound, Scrollable, useAction } from '../../shell/components.js';
import { useCountry } from '../../shell/countries.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { checkoutMessages as messages, sessionName } from './checkout.messages.js';
import { paymentStatusMessages, type PaymentStatus } from '../../shell/paymentStatuses.messages.js';
import type { PageProps } from '../../shell/props.js';

/**
 * One checkout session (`/dashboard/checkout/:id`): its figures, hosted page (copied), its
 * payment with the fee taken from it, the fee it would cost by operator while it is open, and
 * expire it now (confirmed). Another merchant's or an unknown session is not found.
 */
export function CheckoutSession({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const pt = useMessages(paymentStatusMessages);
  const { language } = useContext(LanguageContext);
  const sessionId = id ?? '';
  const key = ['checkout-sessions', environment, 'session', sessionId];
  const [confirming, setConfirming] = useState(false);
  const session = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => sika.get('/api/v1/checkout/sessions/{id}', { params: { path: { id: sessionId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const intentId = session.data?.paymentIntentId ?? null;
  const intent = useQuery({
    queryKey: ['payment', environment, intentId],
    queryFn: () => withSession(() => sika.get('/api/v1/payment-intents/{id}', { params: { path: { id: intentId! } } }), onSignedOut),
    enabled: intentId !== null,
  });
  // Expiring moves the session (and cancels its intent): the list and the payment are asked again too.
  const { action, error } = useAction(onSignedOut, [
    ['checkout-sessions', environment],
    ['payment', environment],
  ]);
  const expire = () => action.mutate(() => sika.post('/api/v1/checkout/sessions/{id}/expire', { params: { path: { id: sessionId } } }), { onSuccess: () => setConfirming(false) });

  if (session.isError && isNotFound(session.error)) return <NotFound title={t('session')} message={t('notFound')} back="checkout" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="checkout">{t('back')}</Link>
      </p>
      <QueryView query={session}>
        {(s) => {
          const money = (minor: number) => formatAmount(language, minor, s.currency);
          return (
            <>
              <ObjectHeading name={`${sessionName(s, t('session'))} · ${money(s.amount)}`} id={s.id} />
              <ErrorMessage text={error} />
              <dl className="facts">
                <dt>{t('status')}</dt>
                <dd>
                  <Badge status={s.status}>{t(`status.${s.status}`)}</Badge>
                </dd>
                <dt>{t('payment')}</dt>
                <dd>{t(`payment.${s.paymentStatus}`)}</dd>
                <dt>{t('amount')}</dt>
                <dd>{money(s.amount)}</dd>
                <dt>{t('customerPays')}</dt>
                <dd>{s.amountTotal == null ? '—' : money(s.amountTotal)}</dd>
                <dt>{t('description')}</dt>
                <dd>{s.description ?? '—'}</dd>
                <dt>{t('customer')}</dt>
                <dd>{[s.customerEmail, s.customerPhone].filter(Boolean).join(' · ') || '—'}</dd>
                <dt>{t('paymentLink')}</dt>
                <dd>{s.paymentLinkId ? <Link to="paymentLinks">{s.paymentLinkId}</Link> : '—'}</dd>
                <dt>{t('created')}</dt>
                <dd>{formatWhen(language, s.created)}</dd>
                <dt>{t('expires')}</dt>
                <dd>{formatWhen(language, s.expiresAt)}</dd>
                <dt>{t('successUrl')}</dt>
                <dd>{s.successUrl ?? '—'}</dd>
                <dt>{t('cancelUrl')}</dt>
                <dd>{s.cancelUrl ?? '—'}</dd>
                <dt>{t('page')}</dt>
                <dd>
                  <a href={s.url} target="_blank" rel="noreferrer">
                    {s.url.replace(/^https?:\/\//, '')}
                  </a>{' '}
                  <CopyButton text={s.url} label={t('copyPage')} />
                </dd>
              </dl>
              {s.status === 'open' && (
                <div className="actions">
                  {confirming ? (
                    <div role="group" aria-label={t('expire')}>
                      <p>{t('expireConfirm')}</p>
                      <button type="button" disabled={action.isPending} onClick={expire}>
                        {t('expireYes')}
                      </button>{' '}
                      <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                        {t('keep')}
                      </button>
                    </div>
                  ) : (
                    <button type="button" className="secondary" onClick={() => setConfirming(true)}>
                      {t('expire')}
                    </button>
                  )}
                </div>
              )}
              {action.isSuccess && s.status === 'expired' && <p role="status">{t('expired')}</p>}
              <section aria-labelledby="session-payment">
                <h2 id="session-payment">{t('itsPayment')}</h2>
                {intentId === null ? (
                  <p>{t('noPayment')}</p>
                ) : (
                  <QueryView query={intent}>
                    {(p) => (
                      <dl className="facts">
                        <dt>{t('intent')}</dt>
                        <dd>
                          <Link to="payment" id={p.id}>
                            <code>{p.id}</code>
                          </Link>
                        </dd>
                        <dt>{t('intentStatus')}</dt>
                        <dd>{pt(`status.${p.status as PaymentStatus}`)}</dd>
                        <dt>{t('fee')}</dt>
                        <dd>{p.fee == null ? '—' : money(p.fee)}</dd>
                        <dt>{t('received')}</dt>
                        <dd>{p.fee == null ? '—' : money((p.amount_received ?? 0) - p.fee)}</dd>
                      </dl>
                    )}
                  </QueryView>
                )}
              </section>
              {s.status === 'open' && <FeesByOperator session={s} environment={environment} onSignedOut={onSignedOut} />}
            </>
          );
        }}
      </QueryView>
    </main>
  );
}

interface QuotedSession {
  id: string;
  country: string;
  currency: string;
  paymentMethodTypes?: string[];
}

/** What a payment of the open session would cost with each operator of its country (and by card when it takes cards), from the API's fee quote. */
function FeesByOperator({ session, environment, onSignedOut }: { session: QuotedSession } & Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const { chosen: country, operators } = useCountry('payin', session.country, onSignedOut);
  const methods = [
    ...((session.paymentMethodTypes ?? ['mobile_money']).includes('mobile_money') ? operators.map((o) => ({ key: o.id, name: o.name, body: { paymentMethodType: 'mobile_money' as const, operator: o.id } })) : []),
    ...((session.paymentMethodTypes ?? []).includes('card') ? [{ key: 'card', name: t('card'), body: { paymentMethodType: 'card' as const } }] : []),
  ];
  const quotes = useQueries({
    queries: methods.map((m) => ({
      queryKey: ['checkout-sessions', environment, 'session', session.id, 'fee', m.key],
      queryFn: () => withSession(() => sika.post('/api/v1/checkout/sessions/{id}/fee_quote', { params: { path: { id: session.id } }, body: m.body }), onSignedOut),
      staleTime: Infinity,
    })),
  });
  const money = (minor: number) => formatAmount(language, minor, session.currency);
  return (
    <section aria-labelledby="session-fees">
      <h2 id="session-fees">{t('fees')}</h2>
      <p>{t('feesHelp', { country: country?.name ?? session.country })}</p>
      <Scrollable labelledBy="session-fees">
        <table>
          <thead>
            <tr>
              <th scope="col">{t('operator')}</th>
              <th scope="col">{t('fee')}</th>
              <th scope="col">{t('customerPays')}</th>
              <th scope="col">{t('youReceive')}</th>
            </tr>
          </thead>
          <tbody>
            {methods.map((m, n) => {
              const q = quotes[n]?.data;
              return (
                <tr key={m.key}>
                  <th scope="row">{m.name}</th>
                  <td className="amount">{q ? money(q.fee) : '…'}</td>
                  <td className="amount">{q ? money(q.amountTotal) : '…'}</td>
                  <td className="amount">{q ? money(q.merchantReceives) : '…'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scrollable>
    </section>
  );
}
