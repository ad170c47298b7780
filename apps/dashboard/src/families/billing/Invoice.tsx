import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState } from 'react';
import { CopyButton, ErrorMessage, errorText, isNotFound, Link, NotFound, ObjectHeading, QueryView, saveAsFile, Scrollable } from '../../shell/components.js';
import { formatWhen, formatAmount, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';
import { invoiceQuery, useCustomerNames, useInvoiceSubject } from './billing.queries.js';
import { InvoiceCollect } from './InvoiceCollect.js';
import type { PageProps } from '../../shell/props.js';

type Next = 'open' | 'paid' | 'void' | 'uncollectible';

/** What an invoice of this status may become (docs/billing.md's diagram). */
const NEXT: Record<string, Next[]> = { draft: ['open'], open: ['paid', 'void', 'uncollectible'], uncollectible: ['paid', 'void'] };
const ACTION = { open: 'finalize', paid: 'markPaid', void: 'void', uncollectible: 'uncollectible' } as const;

/** One invoice: its amounts and lines, the hosted page's link, collection by mobile money, finalize / mark paid / void / uncollectible, and the PDF. */
export function Invoice({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [confirmPaid, setConfirmPaid] = useState(false);
  const invoiceId = id ?? '';
  const invoice = useQuery(invoiceQuery(environment, invoiceId, onSignedOut));
  const customerName = useCustomerNames(environment, invoice.data ? [invoice.data.customer] : [], onSignedOut);
  const invoiceSubject = useInvoiceSubject(environment, onSignedOut);
  const move = useMutation({
    mutationFn: (status: Next) => withSession(() => sika.patch('/api/v1/merchant/invoices/{id}/status', { params: { path: { id: invoiceId } }, body: { status } }), onSignedOut),
    onSuccess: () => {
      setError(null);
      setConfirmPaid(false);
      void queries.invalidateQueries({ queryKey: ['billing', environment] });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  const [sentTo, setSentTo] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: (lang: 'en' | 'fr') => withSession(() => sika.post('/api/v1/merchant/invoices/{id}/send', { params: { path: { id: invoiceId } }, body: { language: lang } }), onSignedOut),
    onSuccess: () => {
      setError(null);
      setSentTo(t('send.done', { email: customerName(invoice.data?.customer ?? '') }));
      void queries.invalidateQueries({ queryKey: ['billing', environment] });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  // The PDF is fetched with the session (the access token lives in the page's memory only), then saved.
  const pdf = useMutation({
    mutationFn: () => withSession(() => sika.get('/api/v1/merchant/invoices/{id}/pdf', { params: { path: { id: invoiceId } }, parseAs: 'blob' }), onSignedOut),
    onSuccess: (blob) => saveAsFile(blob as unknown as Blob, `${invoiceId}.pdf`, 'application/pdf'),
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });

  if (invoice.isError && isNotFound(invoice.error)) return <NotFound title={t('invoice', { id: '' }).trim()} message={t('notFound')} back="invoices" backLabel={t('back.invoices')} />;
  return (
    <main className="page">
      <p>
        <Link to="invoices">{t('back.invoices')}</Link>
      </p>
      <QueryView query={invoice}>
        {(i) => {
          const money = (minor: number) => formatAmount(language, minor, i.currency);
          const remaining = i.amount_remaining ?? i.amount_due - i.amount_paid;
          return (
            <>
              <ObjectHeading name={[customerName(i.customer), invoiceSubject(i)].filter(Boolean).join(' · ')} id={i.id} />
              <ErrorMessage text={error} />
              <dl className="facts">
                <dt>{t('status')}</dt>
                <dd>
                  <Badge status={i.status}>{t(`inv.${i.status}` as 'inv.open')}</Badge>
                </dd>
                <dt>{t('customer')}</dt>
                <dd>
                  <Link to="customer" id={i.customer}>
                    {customerName(i.customer)}
                  </Link>
                </dd>
                {i.subscription ? (
                  <>
                    <dt>{t('subscription')}</dt>
                    <dd>
                      <Link to="subscription" id={i.subscription}>
                        {i.subscription}
                      </Link>
                    </dd>
                  </>
                ) : null}
                <dt>{t('amountDue')}</dt>
                <dd>{money(i.amount_due)}</dd>
                <dt>{t('amountPaid')}</dt>
                <dd>{money(i.amount_paid)}</dd>
                <dt>{t('remaining')}</dt>
                <dd>{money(remaining)}</dd>
                <dt>{t('dueDate')}</dt>
                <dd>{i.due_date ?? '—'}</dd>
                <dt>{t('created')}</dt>
                <dd>{formatWhen(language, i.created, 'utcDate')}</dd>
              </dl>
              <section aria-labelledby="invoice-lines">
                <h2 id="invoice-lines">{t('lines')}</h2>
                <Scrollable labelledBy="invoice-lines">
                  <table className="invoice-lines">
                    <thead>
                      <tr>
                        <th scope="col">{t('line')}</th>
                        <th scope="col">{t('quantity')}</th>
                        <th scope="col">{t('unitAmount')}</th>
                        <th scope="col">{t('amount')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {(i.lines ?? []).map((l, n) => (
                        <tr key={n}>
                          <th scope="row">{l.description}</th>
                          <td>{l.quantity}</td>
                          <td className="amount">{money(l.unit_amount ?? 0)}</td>
                          <td className="amount">{money(l.amount ?? 0)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </Scrollable>
              </section>
              {i.status !== 'draft' && (
                <section aria-labelledby="invoice-hosted">
                  <h2 id="invoice-hosted">{t('hostedLink')}</h2>
                  <p className="link-url">
                    <a href={i.hosted_invoice_url} target="_blank" rel="noreferrer">
                      {i.hosted_invoice_url}
                    </a>
                  </p>
                  <CopyButton text={i.hosted_invoice_url} label={t('copyLink')} />
                </section>
              )}
              {sentTo && (
                <p role="status" className="notice">
                  {sentTo}
                </p>
              )}
              {i.status === 'open' && remaining > 0 && <InvoiceCollect invoiceId={i.id} amount={money(remaining)} environment={environment} onSignedOut={onSignedOut} />}
              <div className="actions">
                {(i.status === 'draft' || i.status === 'open' || i.status === 'uncollectible') && (
                  <button type="button" disabled={send.isPending} onClick={() => send.mutate(language === 'fr' ? 'fr' : 'en')}>
                    {t('send')}
                  </button>
                )}
                {(NEXT[i.status] ?? []).map((to) =>
                  to === 'paid' ? null : (
                    <button key={to} type="button" className={to === 'open' ? '' : 'secondary'} disabled={move.isPending} onClick={() => move.mutate(to)}>
                      {t(ACTION[to])}
                    </button>
                  ),
                )}
                {(NEXT[i.status] ?? []).includes('paid') && !confirmPaid && (
                  <button type="button" disabled={move.isPending} onClick={() => setConfirmPaid(true)}>
                    {t('markPaid')}
                  </button>
                )}
                <button type="button" className="secondary" disabled={pdf.isPending} onClick={() => pdf.mutate()}>
                  {t('pdf')}
                </button>
              </div>
              {confirmPaid && (
                <div role="group" aria-label={t('markPaid')}>
                  <p>{t('markPaid.confirm', { amount: money(remaining) })}</p>
                  <button type="button" disabled={move.isPending} onClick={() => move.mutate('paid')}>
                    {t('confirm')}
                  </button>{' '}
                  <button type="button" className="secondary" onClick={() => setConfirmPaid(false)}>
                    {t('keep')}
                  </button>
                </div>
              )}
            </>
          );
        }}
      </QueryView>
    </main>
  );
}
