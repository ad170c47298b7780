import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { SikaError, type Answer } from '../../../../../clients/typescript/src/index.js';
import { ErrorMessage, isNotFound, Link, NotFound, QueryView, retryUnlessNotFound, Scrollable, useAction } from '../../shell/components.js';
import { decimalsOf, formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { useCatalogNames } from '../../shell/countries.js';
import { FailureReason } from '../../shell/failures.js';
import { ObjectDecisions } from '../../shell/ObjectDecisions.js';
import { ObjectHistory } from '../../shell/ObjectHistory.js';
import { sika, withSession } from '../../shell/session.js';
import { paymentDetailMessages, paymentEventWords, paymentMessages, REASONS, type Reason } from './payments.messages.js';
import type { PageProps } from '../../shell/props.js';

const messages = { en: { ...paymentMessages.en, ...paymentDetailMessages.en }, fr: { ...paymentMessages.fr, ...paymentDetailMessages.fr } };

/** A payment intent as the payment pages read it (the API reference types fewer of its fields). */
/** A payment intent as the API answers it. */
type Intent = Answer<'get', '/api/v1/payment-intents/{id}'>;

/** One payment: its figures, the service's decisions about it, refunds (and a refund), and its whole history from the log with who caused each step. */
export function Payment({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const names = useCatalogNames(onSignedOut);
  const paymentId = id ?? '';
  const key = ['payment', environment, paymentId];
  const intent = useQuery({
    queryKey: [...key, 'object'],
    queryFn: () => withSession(() => sika.get('/api/v1/payment-intents/{id}', { params: { path: { id: paymentId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const refunds = useQuery({
    queryKey: [...key, 'refunds'],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/payments/{id}/refunds', { params: { path: { id: paymentId }, query: { limit: 100 } } }), onSignedOut),
    enabled: intent.isSuccess,
  });
  const history = useQuery({
    queryKey: [...key, 'history'],
    queryFn: () => withSession(() => sika.get('/api/v1/payment-intents/{id}/events', { params: { path: { id: paymentId }, query: { limit: 100 } } }), onSignedOut),
    enabled: intent.isSuccess,
  });

  if (intent.isError && isNotFound(intent.error)) return <NotFound title={t('payment')} message={t('notFound')} back="payments" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="payments">{t('back')}</Link>
      </p>
      <QueryView query={intent}>
        {(p) => {
          const money = (minor: number | null | undefined) => formatAmount(language, minor ?? 0, p.currency);
          const refundList = refunds.data?.data ?? [];
          const refunded = refundList.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
          const mobile = p.payment_method?.mobile_money;
          const card = p.payment_method?.card;
          const paidWith = mobile
            ? [names.operator(mobile.operator), mobile.msisdn].filter(Boolean).join(' · ')
            : card
              ? [names.method('card'), card.brand, card.last4 ? `•••• ${card.last4}` : ''].filter(Boolean).join(' ')
              : names.method(p.payment_method?.type) || '—';
          return (
            <>
              <h1>
                {t('payment')} {money(p.amount)}
              </h1>
              <dl className="facts">
                <dt>{t('payment')}</dt>
                <dd>
                  <code>{p.id}</code>
                </dd>
                <dt>{t('status')}</dt>
                <dd>
                  <Badge status={p.status}>{t(`status.${p.status}` as 'status.succeeded')}</Badge>
                </dd>
                {p.status === 'failed' && (
                  <>
                    <dt>{t('failure.reason')}</dt>
                    <dd>
                      <FailureReason subject="payment" code={p.last_payment_error?.code} message={p.last_payment_error?.message} />
                    </dd>
                  </>
                )}
                <dt>{t('created')}</dt>
                <dd>{formatWhen(language, p.created)}</dd>
                <dt>{t('amount')}</dt>
                <dd>{money(p.amount)}</dd>
                <dt>{t('fee')}</dt>
                <dd>{p.fee == null ? '—' : money(p.fee)}</dd>
                <dt>{t('received')}</dt>
                <dd>{p.amount_received == null ? '—' : money(p.amount_received)}</dd>
                <dt>{t('refunded')}</dt>
                <dd>{money(refunded)}</dd>
                <dt>{t('method')}</dt>
                <dd>{paidWith}</dd>
                <dt>{t('description')}</dt>
                <dd>{p.description ?? '—'}</dd>
                <dt>{t('customer')}</dt>
                <dd>{p.customer ? <code>{p.customer}</code> : '—'}</dd>
              </dl>
              <ObjectDecisions id="payment-decisions" subject={p.id} pageKey={key} onSignedOut={onSignedOut} />
              <section aria-labelledby="payment-refunds">
                <h2 id="payment-refunds">{t('refunds')}</h2>
                {p.status === 'succeeded' && <RefundForm intent={p} left={p.amount - refunded} changed={key} onSignedOut={onSignedOut} />}
                <QueryView query={refunds} isEmpty={() => refundList.length === 0} empty={t('refundsNone')}>
                  {() => (
                    <Scrollable labelledBy="payment-refunds">
                      <table>
                        <thead>
                          <tr>
                            <th scope="col">{t('when')}</th>
                            <th scope="col">{t('amount')}</th>
                            <th scope="col">{t('reason')}</th>
                            <th scope="col">{t('status')}</th>
                          </tr>
                        </thead>
                        <tbody>
                          {refundList.map((r) => (
                            <tr key={r.id}>
                              <th scope="row">{formatWhen(language, r.created)}</th>
                              <td className="amount">{money(r.amount)}</td>
                              <td>{r.reason ? t(`reason.${r.reason}`) : '—'}</td>
                              <td>
                                <Badge status={r.status}>{t(`refundStatus.${r.status}`)}</Badge>
                                {r.status === 'failed' && (
                                  <span className="reason-line">
                                    <FailureReason subject="refund" code={r.failure_reason} />
                                  </span>
                                )}
                              </td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </Scrollable>
                  )}
                </QueryView>
              </section>
              <ObjectHistory id="payment-history" query={history} words={paymentEventWords} status={(status) => t(`status.${status}` as 'status.succeeded')} environment={environment} onSignedOut={onSignedOut} />
            </>
          );
        }}
      </QueryView>
    </main>
  );
}

/** A refund of what is left (or part of it), with one Idempotency-Key per reviewed form: a double click refunds once. Its outcome stays said once nothing is left. */
function RefundForm({ intent, left, changed, onSignedOut }: { intent: Intent; left: number; changed: unknown[]; onSignedOut: () => void }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const [done, setDone] = useState<string | null>(null);
  const { action: refund, error } = useAction(onSignedOut, [changed, ['balance']]);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const typed = String(data.get('amount') ?? '').trim();
    // Empty: all that is left (the API's own default is the whole amount, refused once part is refunded).
    const amount = typed ? minorUnits(Number(typed), intent.currency) : left;
    setDone(null);
    // A refusal is the key's final answer (a retry with it gets the same): the next try is a new refund.
    const onError = (err: Error) => err instanceof SikaError && err.status > 0 && setIdempotencyKey(crypto.randomUUID());
    refund.mutate(
      async () => {
        const made = await sika.post('/api/v1/merchant/payments/{id}/refund', {
          params: { path: { id: intent.id } },
          body: { amount, reason: String(data.get('reason')) as Reason },
          headers: { 'Idempotency-Key': idempotencyKey },
        });
        setDone(t('refundDone', { amount: formatAmount(language, made.amount, made.currency) }));
        setIdempotencyKey(crypto.randomUUID());
        form.reset();
      },
      { onError },
    );
  };
  return (
    <>
      <ErrorMessage text={error} />
      {done && <p role="status">{done}</p>}
      {left <= 0 ? (
        <p>{t('nothingLeft')}</p>
      ) : (
        <>
          <form className="inline-form" onSubmit={submit} aria-label={t('refund')} onChange={() => setIdempotencyKey(crypto.randomUUID())}>
            <label>
              {t('refundAmount')} ({intent.currency.toUpperCase()})
              <input name="amount" type="number" min={10 ** -decimalsOf(intent.currency)} max={Math.max(left, 0) / 10 ** decimalsOf(intent.currency)} step={10 ** -decimalsOf(intent.currency)} aria-describedby="refund-amount-help" />
            </label>
            <label>
              {t('reason')}
              <select name="reason" defaultValue="requested_by_customer">
                {REASONS.map((r) => (
                  <option key={r} value={r}>
                    {t(`reason.${r}`)}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" disabled={refund.isPending}>
              {t('refund')}
            </button>
          </form>
          <p id="refund-amount-help" className="help">
            {t('refundAmountHelp')}
          </p>
        </>
      )}
    </>
  );
}
