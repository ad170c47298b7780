import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { isNotFound, Link, NotFound, QueryView, retryUnlessNotFound } from '../../shell/components.js';
import { formatWhen, formatAmount, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';
import { InvoiceTable, SubscriptionTable } from './billing.tables.js';
import type { PageProps } from '../../shell/props.js';

/** One customer: who they are, their wallet, their subscriptions and their invoices. */
export function Customer({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const customerId = id ?? '';
  const key = ['billing', environment, 'customer', customerId];
  const customer = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/customers/{id}', { params: { path: { id: customerId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const subscriptions = useQuery({
    queryKey: [...key, 'subscriptions'],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/subscriptions', { params: { query: { customer: customerId, limit: 100 } } }), onSignedOut),
    enabled: customer.isSuccess,
  });
  const invoices = useQuery({
    queryKey: [...key, 'invoices'],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/invoices', { params: { query: { customer: customerId, limit: 100 } } }), onSignedOut),
    enabled: customer.isSuccess,
  });
  if (customer.isError && isNotFound(customer.error)) return <NotFound title={t('customer')} message={t('notFound')} back="customers" backLabel={t('back.customers')} />;
  return (
    <main className="page">
      <p>
        <Link to="customers">{t('back.customers')}</Link>
      </p>
      <QueryView query={customer}>
        {(c) => (
          <>
            <h1>{c.name ?? c.email ?? c.id}</h1>
            <dl className="facts">
              <dt>{t('email')}</dt>
              <dd>{c.email ?? '—'}</dd>
              <dt>{t('phone')}</dt>
              <dd>{c.phone ?? '—'}</dd>
              <dt>{t('wallet')}</dt>
              <dd>{c.currency ? formatAmount(language, c.balance, c.currency) : '—'}</dd>
              <dt>{t('created')}</dt>
              <dd>{formatWhen(language, c.created, 'utcDate')}</dd>
            </dl>
            <section aria-labelledby="customer-subscriptions">
              <h2 id="customer-subscriptions">{t('subscriptions.title')}</h2>
              <QueryView query={subscriptions} isEmpty={(l) => !l.data?.length} empty={t('subscriptions.none')}>
                {(l) => <SubscriptionTable rows={l.data ?? []} labelledBy="customer-subscriptions" withCustomer={false} />}
              </QueryView>
            </section>
            <section aria-labelledby="customer-invoices">
              <h2 id="customer-invoices">{t('invoices.title')}</h2>
              <QueryView query={invoices} isEmpty={(l) => !l.data?.length} empty={t('invoices.none')}>
                {(l) => <InvoiceTable rows={l.data ?? []} labelledBy="customer-invoices" withCustomer={false} />}
              </QueryView>
            </section>
          </>
        )}
      </QueryView>
    </main>
  );
}
