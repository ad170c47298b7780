import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { CopyableId, CsvExport, CursorPager, QueryView, RowName, Scrollable, useCursorPages } from '../../shell/components.js';
import { utcDay } from '../../shell/days.js';
import { useCatalogNames } from '../../shell/countries.js';
import { createdBetween, ListFilters } from '../../shell/listFilters.js';
import { StatusCell } from '../../shell/failures.js';
import { formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../shell/paymentStatuses.messages.js';
import { paymentMessages as messages } from './payments.messages.js';
import type { PageProps } from '../../shell/props.js';

interface Filters {
  status: PaymentStatus | '';
  from: string;
  to: string;
  min: string;
  max: string;
  q: string;
}

const NO_FILTER: Filters = { status: '', from: '', to: '', min: '', max: '', q: '' };
// The list's amounts are typed in the merchant's usual currency; XOF has no minor unit.
const AMOUNT_CURRENCY = 'xof';

/** The API's query for `filters`: days are UTC days, the `to` day included. */
function queryOf(f: Filters) {
  return {
    ...(f.status ? { status: f.status } : {}),
    ...createdBetween(f.from, f.to),
    ...(f.min ? { 'amount[gte]': minorUnits(Number(f.min), AMOUNT_CURRENCY) } : {}),
    ...(f.max ? { 'amount[lte]': minorUnits(Number(f.max), AMOUNT_CURRENCY) } : {}),
    ...(f.q.trim() ? { q: f.q.trim() } : {}),
  };
}

type ListedPayment = { payment_method?: { type?: string; mobile_money?: { operator?: string; msisdn?: string }; card?: { brand?: string; last4?: string } } | null };

/** How a payment was paid, as the payer would say it: "Orange Money ••4567", "Visa ••4242"; empty before a method is given. */
function paidWith(p: ListedPayment, operatorName: (id: string) => string): string {
  const m = p.payment_method;
  if (m?.type === 'mobile_money' && m.mobile_money) return `${operatorName(m.mobile_money.operator ?? '')} ••${(m.mobile_money.msisdn ?? '').replace(/\D/g, '').slice(-4)}`;
  if (m?.type === 'card' && m.card) return `${(m.card.brand ?? '').replace(/^./, (c) => c.toUpperCase())} ••${m.card.last4 ?? ''}`;
  return '';
}

/** The environment's payments, newest first, filtered by status, UTC days, amount and a search. */
export function Payments({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const [filters, setFilters] = useState<Filters>(NO_FILTER);
  const names = useCatalogNames(onSignedOut);
  const pages = useCursorPages(`${environment}:${JSON.stringify(filters)}`);
  const payments = useQuery({
    queryKey: ['payments', environment, filters, pages.after],
    queryFn: async () => {
      const list = await withSession(() => sika.get('/api/v1/payment-intents', { params: { query: { limit: 20, ...queryOf(filters), ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut);
      // The route also answers CSV (the export), which this request does not ask for.
      return typeof list === 'string' ? { data: [], has_more: false } : list;
    },
  });
  return (
    <main className="page">
      <h1 id="payments-title">{t('title')}</h1>
      <ListFilters
        id="payments-filters"
        label={t('filters')}
        status={{ label: t('status'), values: PAYMENT_STATUSES, words: (s) => t(`status.${s}`) }}
        onApply={(field) => setFilters({ status: field('status') as PaymentStatus | '', from: field('from'), to: field('to'), min: field('min'), max: field('max'), q: field('q') })}
        onClear={() => setFilters(NO_FILTER)}
      >
        <label>
          {t('minAmount')}
          <input name="min" type="number" min="0" step="any" inputMode="decimal" />
        </label>
        <label>
          {t('maxAmount')}
          <input name="max" type="number" min="0" step="any" inputMode="decimal" />
        </label>
        <label className="wide">
          {t('search')}
          <input name="q" type="search" maxLength={200} aria-describedby="payments-search-help" />
        </label>
        <p id="payments-search-help" className="help">
          {t('searchHelp')}
        </p>
      </ListFilters>
      <CsvExport
        name={`payments-${environment}-${utcDay(Date.now())}.csv`}
        onSignedOut={onSignedOut}
        csv={(timeZone) => sika.get('/api/v1/payment-intents', { params: { query: { ...queryOf(filters), time_zone: timeZone } }, headers: { Accept: 'text/csv' }, parseAs: 'text' })}
      />
      <QueryView query={payments} isEmpty={(d) => !d.data?.length} empty={t('none')}>
        {(list) => (
          <>
            <Scrollable labelledBy="payments-title" twoLine>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('description')}</th>
                    <th scope="col">{t('customer')}</th>
                    <th scope="col">{t('amount')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('created')}</th>
                    <th scope="col">{t('object.id')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(list.data ?? []).map((p) => (
                    <tr key={p.id}>
                      <RowName to="payment" id={p.id} name={p.description ?? t('payment')} detail={paidWith(p, names.operator) || undefined} />
                      <td>{p.customer ? <code>{p.customer}</code> : '—'}</td>
                      <td className="amount" data-card="amount">
                        {formatAmount(language, p.amount, p.currency)}
                      </td>
                      <StatusCell status={p.status} word={t(`status.${p.status}`)} failure={p.status === 'failed' && p.last_payment_error && { subject: 'payment', code: p.last_payment_error.code, message: p.last_payment_error.message }} />
                      <td data-card="date">{formatWhen(language, p.created)}</td>
                      <td>
                        <CopyableId id={p.id} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('pages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </main>
  );
}
