import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, Link, NavigationContext, QueryView, Scrollable } from '../../shell/components.js';
import { formatWhen, formatAmount, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';
import { customersQuery } from './billing.queries.js';
import { CustomerPortalSettings } from './CustomerPortalSettings.js';
import type { PageProps } from '../../shell/props.js';

/** Customers: add one by e-mail, the list (searched by name, e-mail or phone), each opening to their page, and the customer portal they use. */
export function Customers({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const go = useContext(NavigationContext);
  const queries = useQueryClient();
  const [search, setSearch] = useState('');
  const [error, setError] = useState<string | null>(null);
  const list = useQuery(customersQuery(environment, search, onSignedOut));
  const add = useMutation({
    mutationFn: (body: { email: string; name?: string }) => withSession(() => sika.post('/api/v1/merchant/customers', { body }), onSignedOut),
    onSuccess: (c) => {
      setError(null);
      void queries.invalidateQueries({ queryKey: ['billing', environment] });
      go('customer', c.id);
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const name = String(data.get('name')).trim();
    add.mutate({ email: String(data.get('email')).trim(), ...(name ? { name } : {}) });
  };
  return (
    <main className="page">
      <h1>{t('customers.title')}</h1>
      <section aria-labelledby="customer-add">
        <h2 id="customer-add">{t('customers.add')}</h2>
        <form className="inline-form" aria-label={t('customers.add')} onSubmit={submit}>
          <label>
            {t('email')}
            <input name="email" type="email" required autoComplete="off" />
          </label>
          <label>
            {t('name.optional')}
            <input name="name" autoComplete="off" />
          </label>
          <button type="submit" disabled={add.isPending}>
            {t('customers.add')}
          </button>
        </form>
        <ErrorMessage text={error} />
      </section>
      <section aria-labelledby="customer-list">
        <h2 id="customer-list">{t('customers.title')}</h2>
        <label>
          {t('customers.search')}
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
        <QueryView query={list} isEmpty={(l) => !l.data?.length} empty={t('customers.none')}>
          {(l) => (
            <Scrollable labelledBy="customer-list">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('email')}</th>
                    <th scope="col">{t('name')}</th>
                    <th scope="col">{t('wallet')}</th>
                    <th scope="col">{t('created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(l.data ?? []).map((c) => (
                    <tr key={c.id}>
                      <th scope="row">
                        <Link to="customer" id={c.id}>
                          {c.email ?? c.phone ?? c.id}
                        </Link>
                      </th>
                      <td>{c.name ?? '—'}</td>
                      <td className="amount">{c.currency ? formatAmount(language, c.balance, c.currency) : '—'}</td>
                      <td>{formatWhen(language, c.created, 'utcDate')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>
      <CustomerPortalSettings environment={environment} onSignedOut={onSignedOut} />
    </main>
  );
}
