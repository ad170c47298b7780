import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, NavigationContext, QueryView, FilterSelect } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages, SUBSCRIPTION_STATUSES } from './billing.messages.js';
import { SubscriptionTable } from './billing.tables.js';
import { customersQuery, productsQuery, type PriceRow } from './billing.queries.js';
import { usePriceText } from './Products.js';
import type { PageProps } from '../../shell/props.js';

type Status = (typeof SUBSCRIPTION_STATUSES)[number];

/** Subscriptions: a customer subscribed to a recurring price (one Idempotency-Key per filled-in form), and the list by status. */
export function Subscriptions({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const priceText = usePriceText();
  const go = useContext(NavigationContext);
  const queries = useQueryClient();
  const [status, setStatus] = useState<Status | ''>('');
  const [error, setError] = useState<string | null>(null);
  // One key per filled-in form: a double click subscribes once; a change of the form is another subscription.
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const customers = useQuery(customersQuery(environment, '', onSignedOut));
  const products = useQuery(productsQuery(environment, onSignedOut));
  const list = useQuery({
    queryKey: ['billing', environment, 'subscriptions', status],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/subscriptions', { params: { query: { limit: 100, ...(status ? { status } : {}) } } }), onSignedOut),
  });
  const create = useMutation({
    mutationFn: (body: { customer: string; items: { price: string; quantity: number }[] }) => withSession(() => sika.post('/api/v1/merchant/subscriptions', { body, headers: { 'Idempotency-Key': idempotencyKey } }), onSignedOut),
    onSuccess: (s) => {
      setError(null);
      setIdempotencyKey(crypto.randomUUID());
      void queries.invalidateQueries({ queryKey: ['billing', environment] });
      go('subscription', s.id);
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  const prices = (products.data?.data ?? []).filter((p) => p.active).flatMap((p) => ((p.prices ?? []) as PriceRow[]).filter((price) => price.recurring).map((price) => ({ product: p.name, price })));
  const people = customers.data?.data ?? [];
  // A second press before the first answer is not sent at all (the key makes a repeat harmless, but the API
  // answers a concurrent one with 409 IKW-IDM-003).
  const sending = useRef(false);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (sending.current) return;
    sending.current = true;
    const data = new FormData(e.currentTarget);
    create.mutate({ customer: String(data.get('customer')), items: [{ price: String(data.get('price')), quantity: Number(data.get('quantity')) }] }, { onSettled: () => (sending.current = false) });
  };
  return (
    <main className="page">
      <h1>{t('subscriptions.title')}</h1>
      <section aria-labelledby="subscription-new">
        <h2 id="subscription-new">{t('subscriptions.new')}</h2>
        {customers.isSuccess && products.isSuccess && (people.length === 0 || prices.length === 0) ? (
          <p>{t('subscriptions.needs')}</p>
        ) : (
          <form className="inline-form" aria-label={t('subscriptions.new')} onSubmit={submit} onChange={() => setIdempotencyKey(crypto.randomUUID())}>
            <label>
              {t('customer')}
              <select name="customer" required>
                {people.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name ? `${c.name} (${c.email ?? c.id})` : (c.email ?? c.id)}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('price')}
              <select name="price" required>
                {prices.map(({ product, price }) => (
                  <option key={price.id} value={price.id}>
                    {product} — {priceText(price)}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('quantity')}
              <input name="quantity" type="number" step="1" defaultValue="1" required />
            </label>
            <button type="submit" disabled={create.isPending}>
              {t('subscriptions.create')}
            </button>
          </form>
        )}
        <ErrorMessage text={error} />
      </section>
      <section aria-labelledby="subscription-list">
        <h2 id="subscription-list">{t('subscriptions.title')}</h2>
        <FilterSelect label={t('filter')} value={status} values={SUBSCRIPTION_STATUSES} any={t('all')} words={(s) => t(`sub.${s}`)} onChange={setStatus} inline={false} />
        <QueryView query={list} isEmpty={(l) => !l.data?.length} empty={t('subscriptions.none')}>
          {(l) => <SubscriptionTable rows={l.data ?? []} labelledBy="subscription-list" environment={environment} onSignedOut={onSignedOut} />}
        </QueryView>
      </section>
    </main>
  );
}
