import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { Fragment, useContext, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, isNotFound, Link, NotFound, ObjectHeading, QueryView, retryUnlessNotFound, Scrollable } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';
import { InvoiceTable } from './billing.tables.js';
import { productsQuery, useCustomerNames, useProductOfPrice, type PriceRow } from './billing.queries.js';
import { usePriceText } from './Products.js';
import type { PageProps } from '../../shell/props.js';

/** One subscription: its customer, prices and period; cancel at period end or now; its invoices; usage on a metered price. */
export function Subscription({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const priceText = usePriceText();
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [usageKey, setUsageKey] = useState(() => crypto.randomUUID());
  const subscriptionId = id ?? '';
  const key = ['billing', environment, 'subscription', subscriptionId];
  const subscription = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/subscriptions/{id}', { params: { path: { id: subscriptionId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const products = useQuery(productsQuery(environment, onSignedOut));
  const invoices = useQuery({
    queryKey: [...key, 'invoices'],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/invoices', { params: { query: { subscription: subscriptionId, limit: 100 } } }), onSignedOut),
    enabled: subscription.isSuccess,
  });
  const pricesById = new Map((products.data?.data ?? []).flatMap((p) => ((p.prices ?? []) as PriceRow[]).map((price) => [price.id, { product: p.name, price }] as const)));
  const s = subscription.data;
  const customerName = useCustomerNames(environment, s ? [s.customer] : [], onSignedOut);
  const productOf = useProductOfPrice(environment, onSignedOut);
  const metered = (s?.items ?? []).some((item) => pricesById.get(item.price ?? '')?.price.recurring?.usage_type === 'metered');
  const usage = useQuery({
    queryKey: [...key, 'usage'],
    queryFn: () => withSession(() => sika.get('/api/v1/billing/usage/records', { params: { query: { subscriptionId, limit: 100 } } }), onSignedOut),
    enabled: metered,
  });
  const call = useMutation({
    mutationFn: (send: () => Promise<unknown>) => withSession(send, onSignedOut),
    onSuccess: () => {
      setError(null);
      setConfirming(false);
      void queries.invalidateQueries({ queryKey: ['billing', environment] });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  const cancel = (atPeriodEnd: boolean) => call.mutate(() => sika.post('/api/v1/merchant/subscriptions/{id}/cancel', { params: { path: { id: subscriptionId } }, body: { at_period_end: atPeriodEnd } }));
  // A second press before the first answer is not sent (the usage's idempotencyKey would make it harmless).
  const recording = useRef(false);
  const record = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (recording.current) return;
    recording.current = true;
    const form = e.currentTarget;
    const data = new FormData(form);
    const body = { subscriptionId, meterKey: String(data.get('meter')).trim(), quantity: Number(data.get('quantity')), idempotencyKey: usageKey };
    call.mutate(() => sika.post('/api/v1/billing/usage/records', { body }), {
      onSuccess: () => {
        form.reset();
        setUsageKey(crypto.randomUUID());
      },
      onSettled: () => (recording.current = false),
    });
  };

  if (subscription.isError && isNotFound(subscription.error)) return <NotFound title={t('subscription')} message={t('notFound')} back="subscriptions" backLabel={t('back.subscriptions')} />;
  return (
    <main className="page">
      <p>
        <Link to="subscriptions">{t('back.subscriptions')}</Link>
      </p>
      <QueryView query={subscription}>
        {(s) => (
          <>
            <ObjectHeading name={[customerName(s.customer), productOf(s.items[0]?.price ?? s.billing_plan)].filter(Boolean).join(' · ')} id={s.id} />
            <ErrorMessage text={error} />
            <dl className="facts">
              <dt>{t('customer')}</dt>
              <dd>
                <Link to="customer" id={s.customer}>
                  {customerName(s.customer)}
                </Link>
              </dd>
              <dt>{t('status')}</dt>
              <dd>
                <Badge status={s.status}>{t(`sub.${s.status}` as 'sub.active')}</Badge>
                {s.cancel_at_period_end && s.status !== 'canceled' ? ` — ${t('endsAtPeriodEnd')}` : ''}
              </dd>
              <dt>{t('period')}</dt>
              <dd>
                {formatWhen(language, s.current_period_start, 'utcDate')} – {formatWhen(language, s.current_period_end, 'utcDate')}
              </dd>
              {s.canceled_at ? (
                <>
                  <dt>{t('canceledAt')}</dt>
                  <dd>{formatWhen(language, s.canceled_at, 'utcDate')}</dd>
                </>
              ) : null}
              {s.items.map((item) => {
                const found = pricesById.get(item.price ?? '');
                return (
                  <Fragment key={item.id}>
                    <dt>{t('price')}</dt>
                    <dd>{`${found ? `${found.product} — ${priceText(found.price)}` : item.price} × ${item.quantity}`}</dd>
                  </Fragment>
                );
              })}
            </dl>
            {s.status !== 'canceled' && (
              <div className="actions">
                {!s.cancel_at_period_end && (
                  <button type="button" className="secondary" disabled={call.isPending} onClick={() => cancel(true)}>
                    {t('cancelAtPeriodEnd')}
                  </button>
                )}
                {confirming ? (
                  <div role="group" aria-label={t('cancelNow')}>
                    <p>{t('cancelNow.confirm')}</p>
                    <button type="button" disabled={call.isPending} onClick={() => cancel(false)}>
                      {t('confirm')}
                    </button>{' '}
                    <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                      {t('keep')}
                    </button>
                  </div>
                ) : (
                  <button type="button" className="secondary" onClick={() => setConfirming(true)}>
                    {t('cancelNow')}
                  </button>
                )}
              </div>
            )}
            <section aria-labelledby="subscription-invoices">
              <h2 id="subscription-invoices">{t('invoices.title')}</h2>
              <QueryView query={invoices} isEmpty={(l) => !l.data?.length} empty={t('invoices.none')}>
                {(l) => <InvoiceTable rows={l.data ?? []} labelledBy="subscription-invoices" withCustomer={false} environment={environment} onSignedOut={onSignedOut} />}
              </QueryView>
            </section>
            <section aria-labelledby="subscription-usage">
              <h2 id="subscription-usage">{t('usage')}</h2>
              {!metered ? (
                <p>{t('usage.onlyMetered')}</p>
              ) : (
                <>
                  {s.status !== 'canceled' && (
                    <form className="inline-form" aria-label={t('usage.record')} onSubmit={record} onChange={() => setUsageKey(crypto.randomUUID())}>
                      <label>
                        {t('meter')}
                        <input name="meter" required defaultValue="units" autoComplete="off" />
                      </label>
                      <label>
                        {t('quantity')}
                        <input name="quantity" type="number" step="1" required />
                      </label>
                      <button type="submit" disabled={call.isPending}>
                        {t('usage.record')}
                      </button>
                    </form>
                  )}
                  <QueryView query={usage} isEmpty={(l) => !l.data?.length} empty={t('usage.none')}>
                    {(l) => (
                      <Scrollable labelledBy="subscription-usage">
                        <table>
                          <thead>
                            <tr>
                              <th scope="col">{t('meter')}</th>
                              <th scope="col">{t('quantity')}</th>
                              <th scope="col">{t('occurred')}</th>
                            </tr>
                          </thead>
                          <tbody>
                            {(l.data ?? []).map((r) => (
                              <tr key={r.id}>
                                <th scope="row">{r.meterKey}</th>
                                <td>{r.quantity}</td>
                                <td>{formatWhen(language, r.occurredAt)}</td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </Scrollable>
                    )}
                  </QueryView>
                </>
              )}
            </section>
          </>
        )}
      </QueryView>
    </main>
  );
}
