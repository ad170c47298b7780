import { useContext } from 'react';
import { Badge } from '../../shell/Badge.js';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { CopyableId, RowName, Scrollable } from '../../shell/components.js';
import { formatWhen, formatAmount, LanguageContext, useMessages, useT } from '../../shell/i18n.js';
import { billingMessages as messages } from './billing.messages.js';
import { useCustomerNames, useInvoiceSubject, useProductOfPrice } from './billing.queries.js';

/** A subscription as the merchant routes list it. */
type SubscriptionRow = Answer<'get', '/api/v1/merchant/subscriptions'>['data'][number];

/** An invoice as the merchant routes list it. */
type InvoiceRow = Answer<'get', '/api/v1/merchant/invoices'>['data'][number];

/** What the billing lists need to name customers and products. */
interface Naming {
  environment: string;
  onSignedOut: () => void;
}

/**
 * Subscriptions as a table, each led by its customer's name (linking to the subscription) with
 * the product it is to under it, the id last; without `withCustomer` (a customer's own page), led by the product.
 */
export function SubscriptionTable({ rows, labelledBy, withCustomer = true, environment, onSignedOut }: { rows: SubscriptionRow[]; labelledBy: string; withCustomer?: boolean } & Naming) {
  const t = useMessages(messages);
  const shared = useT();
  const { language } = useContext(LanguageContext);
  const customerName = useCustomerNames(environment, withCustomer ? rows.map((s) => s.customer) : [], onSignedOut);
  const productOf = useProductOfPrice(environment, onSignedOut);
  return (
    <Scrollable labelledBy={labelledBy}>
      <table>
        <thead>
          <tr>
            <th scope="col">{withCustomer ? t('customer') : t('product')}</th>
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('periodEnd')}</th>
            <th scope="col">{shared('object.id')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => {
            const product = productOf(s.items[0]?.price ?? s.billing_plan);
            return (
              <tr key={s.id}>
                {withCustomer ? <RowName to="subscription" id={s.id} name={customerName(s.customer)} detail={product} /> : <RowName to="subscription" id={s.id} name={product ?? t('subscription')} />}
                <td>
                  <Badge status={s.status}>{t(`sub.${s.status}` as 'sub.active')}</Badge>
                  {s.cancel_at_period_end && s.status !== 'canceled' ? ` — ${t('endsAtPeriodEnd')}` : ''}
                </td>
                <td>{formatWhen(language, s.current_period_end, 'utcDate')}</td>
                <td>
                  <CopyableId id={s.id} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Scrollable>
  );
}

/**
 * Invoices as a table, each led by its customer's name (linking to the invoice) with what it is
 * for under it, the id last; without `withCustomer` (a customer's or a subscription's page), led by what it is for.
 */
export function InvoiceTable({ rows, labelledBy, withCustomer = true, environment, onSignedOut }: { rows: InvoiceRow[]; labelledBy: string; withCustomer?: boolean } & Naming) {
  const t = useMessages(messages);
  const shared = useT();
  const { language } = useContext(LanguageContext);
  const customerName = useCustomerNames(environment, withCustomer ? rows.map((i) => i.customer) : [], onSignedOut);
  const invoiceSubject = useInvoiceSubject(environment, onSignedOut);
  return (
    <Scrollable labelledBy={labelledBy}>
      <table>
        <thead>
          <tr>
            <th scope="col">{withCustomer ? t('customer') : t('invoiceFor')}</th>
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('amountDue')}</th>
            <th scope="col">{t('remaining')}</th>
            <th scope="col">{t('dueDate')}</th>
            <th scope="col">{shared('object.id')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((i) => (
            <tr key={i.id}>
              {withCustomer ? <RowName to="invoice" id={i.id} name={customerName(i.customer)} detail={invoiceSubject(i)} /> : <RowName to="invoice" id={i.id} name={invoiceSubject(i) ?? t('invoice', { id: '' }).trim()} />}
              <td>
                <Badge status={i.status}>{t(`inv.${i.status}` as 'inv.open')}</Badge>
              </td>
              <td className="amount">{formatAmount(language, i.amount_due, i.currency)}</td>
              <td className="amount">{formatAmount(language, i.amount_remaining ?? i.amount_due - i.amount_paid, i.currency)}</td>
              <td>{i.due_date ? formatWhen(language, `${i.due_date}T00:00:00Z`, 'utcDate') : '—'}</td>
              <td>
                <CopyableId id={i.id} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}
