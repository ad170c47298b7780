import { useContext } from 'react';
import { Badge } from '../../shell/Badge.js';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { CopyableId, Link, Scrollable } from '../../shell/components.js';
import { formatWhen, formatAmount, LanguageContext, useMessages } from '../../shell/i18n.js';
import { billingMessages as messages } from './billing.messages.js';

/** A subscription as the merchant routes list it. */
type SubscriptionRow = Answer<'get', '/api/v1/merchant/subscriptions'>['data'][number];

/** An invoice as the merchant routes list it. */
type InvoiceRow = Answer<'get', '/api/v1/merchant/invoices'>['data'][number];

/** Subscriptions as a table, each linking to its page (the customer's too, unless `withCustomer` is false). */
export function SubscriptionTable({ rows, labelledBy, withCustomer = true }: { rows: SubscriptionRow[]; labelledBy: string; withCustomer?: boolean }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  return (
    <Scrollable labelledBy={labelledBy}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('subscription')}</th>
            {withCustomer && <th scope="col">{t('customer')}</th>}
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('periodEnd')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                <CopyableId id={s.id} to="subscription" />
              </th>
              {withCustomer && (
                <td>
                  <Link to="customer" id={s.customer}>
                    {s.customer}
                  </Link>
                </td>
              )}
              <td>
                <Badge status={s.status}>{t(`sub.${s.status}` as 'sub.active')}</Badge>
                {s.cancel_at_period_end && s.status !== 'canceled' ? ` — ${t('endsAtPeriodEnd')}` : ''}
              </td>
              <td>{formatWhen(language, s.current_period_end, 'utcDate')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}

/** Invoices as a table, each linking to its page. */
export function InvoiceTable({ rows, labelledBy, withCustomer = true }: { rows: InvoiceRow[]; labelledBy: string; withCustomer?: boolean }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  return (
    <Scrollable labelledBy={labelledBy}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('invoice', { id: '' }).trim()}</th>
            {withCustomer && <th scope="col">{t('customer')}</th>}
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('amountDue')}</th>
            <th scope="col">{t('remaining')}</th>
            <th scope="col">{t('dueDate')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((i) => (
            <tr key={i.id}>
              <th scope="row">
                <CopyableId id={i.id} to="invoice" />
              </th>
              {withCustomer && (
                <td>
                  <Link to="customer" id={i.customer}>
                    {i.customer}
                  </Link>
                </td>
              )}
              <td>
                <Badge status={i.status}>{t(`inv.${i.status}` as 'inv.open')}</Badge>
              </td>
              <td className="amount">{formatAmount(language, i.amount_due, i.currency)}</td>
              <td className="amount">{formatAmount(language, i.amount_remaining ?? i.amount_due - i.amount_paid, i.currency)}</td>
              <td>{i.due_date ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}
