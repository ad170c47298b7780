import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useState, type FormEvent, type ReactNode } from 'react';
import { ErrorMessage, errorText, QueryView, Scrollable } from '../../shell/components.js';
import { CurrencySelect } from '../../shell/countries.js';
import { formatAmount, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';
import { productsQuery, type PriceRow } from './billing.queries.js';
import type { PageProps } from '../../shell/props.js';

const INTERVALS = ['month', 'year', 'week', 'day'] as const;

/** A price's terms in words: "XOF 5,000 every month", "… per unit" for a metered one. */
export function usePriceText() {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  return (p: PriceRow) => {
    const amount = formatAmount(language, p.unit_amount, p.currency);
    const interval = t(`interval.${p.recurring?.interval ?? 'once'}` as 'interval.once');
    return p.recurring?.usage_type === 'metered' ? t('perUnit', { amount, interval }) : `${amount} ${interval}`;
  };
}

/** The fields of one price, in a product's form and in "add a price". */
function PriceFields({ prefix, onSignedOut }: { prefix: string; onSignedOut: () => void }) {
  const t = useMessages(messages);
  return (
    <>
      <label>
        {t('amount')}
        <input name="amount" type="number" step="any" required inputMode="decimal" aria-describedby={`${prefix}-currency`} />
      </label>
      <CurrencySelect label={t('currency')} id={`${prefix}-currency`} name="currency" defaultValue="XOF" onSignedOut={onSignedOut} />
      <label>
        {t('interval')}
        <select name="interval" defaultValue="month">
          {INTERVALS.map((i) => (
            <option key={i} value={i}>
              {t(`interval.${i}`)}
            </option>
          ))}
          <option value="once">{t('interval.once')}</option>
        </select>
      </label>
      <label>
        {t('usageType')}
        <select name="usage" defaultValue="licensed">
          <option value="licensed">{t('usage.licensed')}</option>
          <option value="metered">{t('usage.metered')}</option>
        </select>
      </label>
    </>
  );
}

/** A price from PriceFields' values; the amount as typed in the currency's units, sent in minor units. */
function priceOf(data: FormData) {
  const currency = String(data.get('currency')).trim().toLowerCase();
  const interval = String(data.get('interval'));
  return {
    currency,
    unit_amount: minorUnits(Number(data.get('amount')), /^[a-z]{3}$/.test(currency) ? currency : 'xof'),
    recurring: interval === 'once' ? null : { interval: interval as (typeof INTERVALS)[number], usage_type: String(data.get('usage')) as 'licensed' | 'metered' },
  };
}

/** Products and their prices: a new product with its first price, a price added to a product. */
export function Products({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const priceText = usePriceText();
  const queries = useQueryClient();
  const [error, setError] = useState<{ where: string; text: string } | null>(null);
  const list = useQuery(productsQuery(environment, onSignedOut));
  const call = useMutation({
    mutationFn: ({ send }: { where: string; send: () => Promise<unknown> }) => withSession(send, onSignedOut),
    onSuccess: () => {
      setError(null);
      void queries.invalidateQueries({ queryKey: ['billing', environment] });
    },
    onError: (err, { where }) => setError({ where, text: errorText(err, t('error.generic')) }),
  });
  const submit = (where: string, send: (data: FormData) => () => Promise<unknown>) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    call.mutate({ where, send: send(new FormData(form)) }, { onSuccess: () => form.reset() });
  };
  const errorAt = (where: string): ReactNode => <ErrorMessage text={error?.where === where ? error.text : null} />;
  return (
    <main className="page">
      <h1>{t('products.title')}</h1>
      <section aria-labelledby="product-new">
        <h2 id="product-new">{t('products.new')}</h2>
        <form
          className="inline-form"
          aria-label={t('products.new')}
          onSubmit={submit('new', (data) => {
            const description = String(data.get('description')).trim();
            const body = { name: String(data.get('name')).trim(), ...(description ? { description } : {}), prices: [priceOf(data)] };
            return () => sika.post('/api/v1/merchant/products', { body });
          })}
        >
          <label>
            {t('name')}
            <input name="name" required autoComplete="off" />
          </label>
          <label>
            {t('description')}
            <input name="description" autoComplete="off" />
          </label>
          <PriceFields prefix="new" onSignedOut={onSignedOut} />
          <button type="submit" disabled={call.isPending}>
            {t('products.create')}
          </button>
        </form>
        {errorAt('new')}
      </section>
      <section aria-labelledby="product-list">
        <h2 id="product-list">{t('products.title')}</h2>
        <QueryView query={list} isEmpty={(l) => !l.data?.length} empty={t('products.none')}>
          {(l) =>
            (l.data ?? []).map((p) => (
              <section key={p.id} className="product" aria-labelledby={`product-${p.id}`}>
                <h3 id={`product-${p.id}`}>{p.name}</h3>
                {p.description && <p>{p.description}</p>}
                {(p.prices ?? []).length === 0 ? (
                  <p>{t('prices.none')}</p>
                ) : (
                  <Scrollable labelledBy={`product-${p.id}`}>
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('price')}</th>
                          <th scope="col">{t('prices')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {((p.prices ?? []) as PriceRow[]).map((price) => (
                          <tr key={price.id}>
                            <th scope="row">{price.id}</th>
                            <td>{priceText(price)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scrollable>
                )}
                <details>
                  <summary>{t('prices.add')}</summary>
                  <form
                    className="inline-form"
                    aria-label={t('prices.addTo', { name: p.name })}
                    onSubmit={submit(p.id, (data) => () => sika.patch('/api/v1/merchant/products/{id}', { params: { path: { id: p.id } }, body: { add_prices: [priceOf(data)] } }))}
                  >
                    <PriceFields prefix={p.id} onSignedOut={onSignedOut} />
                    <button type="submit" disabled={call.isPending}>
                      {t('prices.add')}
                    </button>
                  </form>
                </details>
                {errorAt(p.id)}
              </section>
            ))
          }
        </QueryView>
      </section>
    </main>
  );
}
