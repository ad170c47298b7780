import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { Badge } from '../../shell/Badge.js';
import { CopyableId, isNotFound, Link, NotFound, QueryView, Scrollable } from '../../shell/components.js';
import { formatWhen, formatAmount, LanguageContext, LOCALES, useMessages, type Language } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';
import { InvoiceTable, SubscriptionTable } from './billing.tables.js';
import { customerQuery } from './billing.queries.js';
import type { PageProps } from '../../shell/props.js';

/** A card's brand as its issuer writes it ("visa" from Paystack is Visa). */
const cardBrand = (brand: string) => ({ visa: 'Visa', mastercard: 'Mastercard', verve: 'Verve', 'american express': 'American Express', amex: 'American Express' })[brand.trim().toLowerCase()] ?? brand;

/** A card's expiry as the language writes a month and year (12/2030 → Dec 2030, déc. 2030). */
const cardExpiry = (language: Language, month: string, year: string) => new Date(Date.UTC(Number(year), Number(month) - 1, 1)).toLocaleDateString(LOCALES[language], { timeZone: 'UTC', month: 'short', year: 'numeric' });

/** One customer: who they are, their wallet, their saved cards, their subscriptions and their invoices. */
export function Customer({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const customerId = id ?? '';
  const customer = useQuery(customerQuery(environment, customerId, onSignedOut));
  const key = customerQuery(environment, customerId, onSignedOut).queryKey;
  const subscriptions = useQuery({
    queryKey: [...key, 'subscriptions'],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/subscriptions', { params: { query: { customer: customerId, limit: 100 } } }), onSignedOut),
    enabled: customer.isSuccess,
  });
  const cards = useQuery({
    queryKey: [...key, 'cards'],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/customers/{id}/cards', { params: { path: { id: customerId } } }), onSignedOut),
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
            <section aria-labelledby="customer-cards">
              <h2 id="customer-cards">{t('cards.title')}</h2>
              <p>{t('cards.help')}</p>
              <QueryView query={cards} isEmpty={(l) => l.data.length === 0} empty={t('cards.none')}>
                {(l) => (
                  <Scrollable labelledBy="customer-cards">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('cards.card')}</th>
                          <th scope="col">{t('cards.expires')}</th>
                          <th scope="col">{t('cards.use')}</th>
                          <th scope="col">{t('cards.token')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {l.data.map((card) => (
                          <tr key={card.token}>
                            <th scope="row">
                              {cardBrand(card.brand)} •••• {card.last4}
                            </th>
                            <td>{cardExpiry(language, card.exp_month, card.exp_year)}</td>
                            <td>
                              <Badge status={card.reusable ? 'reusable' : 'single_use'}>{card.reusable ? t('cards.reusable') : t('cards.singleUse')}</Badge>
                            </td>
                            <td>
                              <CopyableId id={card.token} />
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scrollable>
                )}
              </QueryView>
            </section>
            <section aria-labelledby="customer-subscriptions">
              <h2 id="customer-subscriptions">{t('subscriptions.title')}</h2>
              <QueryView query={subscriptions} isEmpty={(l) => !l.data?.length} empty={t('subscriptions.none')}>
                {(l) => <SubscriptionTable rows={l.data ?? []} labelledBy="customer-subscriptions" withCustomer={false} environment={environment} onSignedOut={onSignedOut} />}
              </QueryView>
            </section>
            <section aria-labelledby="customer-invoices">
              <h2 id="customer-invoices">{t('invoices.title')}</h2>
              <QueryView query={invoices} isEmpty={(l) => !l.data?.length} empty={t('invoices.none')}>
                {(l) => <InvoiceTable rows={l.data ?? []} labelledBy="customer-invoices" withCustomer={false} environment={environment} onSignedOut={onSignedOut} />}
              </QueryView>
            </section>
          </>
        )}
      </QueryView>
    </main>
  );
}
