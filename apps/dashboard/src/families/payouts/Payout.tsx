import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { BalanceTransactionsTable } from '../../shell/BalanceTransactions.js';
import { ErrorMessage, errorText, isNotFound, Link, NotFound, QueryView, retryUnlessNotFound, useCanWrite } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, useMessages, useT } from '../../shell/i18n.js';
import { ObjectDecisions } from '../../shell/ObjectDecisions.js';
import { ObjectHistory } from '../../shell/ObjectHistory.js';
import { FailureReason } from '../../shell/failures.js';
import { useCatalogNames } from '../../shell/countries.js';
import { destinationText } from '../../shell/destinations.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { payoutEventWords, payoutMessages } from './payouts.messages.js';

/** While a payout waits for its operator, its page asks again this often. */
const FOLLOW_MS = 5000;

/**
 * A payout the risk rules held for review (docs/risk.md, "Review"): released, it is sent now;
 * declined (with an optional reason), it fails and its money goes back to available. One
 * Idempotency-Key per decision shown, so a second press decides nothing twice.
 */
function ReviewDecision({ payoutId, environment, onSignedOut }: { payoutId: string; environment: string; onSignedOut: () => void }) {
  const t = useMessages(payoutMessages);
  const queries = useQueryClient();
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState('');
  const [key] = useState(() => crypto.randomUUID());
  const path = { params: { path: { id: payoutId } } };
  const decide = useMutation({
    mutationFn: (decision: 'release' | 'decline') =>
      withSession(
        () =>
          decision === 'release'
            ? sika.post('/api/v1/payouts/{id}/release', { ...path, headers: { 'Idempotency-Key': `${key}.release` } })
            : sika.post('/api/v1/payouts/{id}/decline', { ...path, body: reason.trim() ? { reason: reason.trim() } : {}, headers: { 'Idempotency-Key': `${key}.decline` } }),
        onSignedOut,
      ),
    onSettled: () => queries.invalidateQueries({ queryKey: ['payout', environment, payoutId] }),
  });
  const decline = (e: FormEvent) => {
    e.preventDefault();
    decide.mutate('decline');
  };
  return (
    <section aria-labelledby="payout-review" className="panel">
      <h2 id="payout-review">{t('review.held')}</h2>
      <p>{t('review.help')}</p>
      {decide.isError && <ErrorMessage text={errorText(decide.error, t('review.failed'))} error={decide.error} />}
      {declining ? (
        <form onSubmit={decline}>
          <label>
            {t('review.reason')}
            <textarea value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
          </label>
          <div className="actions">
            <button type="submit" disabled={decide.isPending}>
              {t('review.declineSubmit')}
            </button>
            <button type="button" className="secondary" onClick={() => setDeclining(false)}>
              {t('review.cancel')}
            </button>
          </div>
        </form>
      ) : (
        <div className="actions">
          <button type="button" disabled={decide.isPending} onClick={() => decide.mutate('release')}>
            {t('review.release')}
          </button>
          <button type="button" className="secondary" disabled={decide.isPending} onClick={() => setDeclining(true)}>
            {t('review.decline')}
          </button>
        </div>
      )}
    </section>
  );
}

/** One payout: its status, destination, when it is expected, whether (and why) it is delayed, why it failed, the service's decisions about it (a review rule's reasons), what it took from the balance, and its history with who caused each step. */
export function PayoutPage({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(payoutMessages);
  const names = useCatalogNames(onSignedOut);
  const shared = useT();
  const { language } = useContext(LanguageContext);
  const canPayOut = useCanWrite('payouts.write', environment, onSignedOut);
  const payoutId = id ?? '';
  const payout = useQuery({
    queryKey: ['payout', environment, payoutId],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/payouts/{id}', { params: { path: { id: payoutId } } }), onSignedOut),
    retry: retryUnlessNotFound,
    refetchInterval: (q) => (q.state.data && ['pending', 'in_transit'].includes(q.state.data.status) ? FOLLOW_MS : false),
  });
  const history = useQuery({
    queryKey: ['payout', environment, payoutId, 'history'],
    queryFn: () => withSession(() => sika.get('/api/v1/payouts/{id}/events', { params: { path: { id: payoutId }, query: { limit: 100 } } }), onSignedOut),
    enabled: payout.isSuccess,
    // While the operator has not answered, its next step may come at any moment.
    refetchInterval: (q) => (payout.data && ['pending', 'in_transit'].includes(payout.data.status) && q.state.data ? FOLLOW_MS : false),
  });
  const money = useQuery({
    queryKey: ['payout', environment, payoutId, 'balance-transactions'],
    queryFn: async () => {
      const list = await withSession(() => sika.get('/api/v1/balance-transactions', { params: { query: { source: payoutId, limit: 100 } } }), onSignedOut);
      // The route also answers CSV, which this request does not ask for.
      return typeof list === 'string' ? [] : (list.data ?? []);
    },
    enabled: payout.isSuccess,
  });

  // The payout object has no time of payment: its payout.paid event's is it.
  const paidAt = history.data?.data?.find((e) => e.type === 'payout.paid')?.created;

  if (payout.isError && isNotFound(payout.error)) return <NotFound title={shared('payouts.id')} message={t('notFound')} back="payouts" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="payouts">{t('back')}</Link>
      </p>
      <QueryView query={payout}>
        {(p) => {
          return (
            <>
              <h1 className="id-title">
                {shared('payouts.id')} {formatAmount(language, p.amount, p.currency)}
              </h1>
              <dl className="facts">
                <dt>{shared('payouts.id')}</dt>
                <dd>
                  <code>{p.id}</code>
                </dd>
                <dt>{shared('payouts.status')}</dt>
                <dd>
                  <Badge status={p.status}>{shared(`payouts.status.${p.status}`)}</Badge>
                </dd>
                <dt>{shared('payouts.amount')}</dt>
                <dd>{formatAmount(language, p.amount, p.currency)}</dd>
                <dt>{shared('payouts.fee')}</dt>
                <dd>{p.fee == null ? '—' : formatAmount(language, p.fee, p.currency)}</dd>
                <dt>{shared('payouts.created.at')}</dt>
                <dd>{formatWhen(language, p.created)}</dd>
                <dt>{t('destination')}</dt>
                <dd>{destinationText(p.destination, names)}</dd>
                {/* When it should arrive and whether it is late, while it is on its way; when it arrived once paid; neither once it failed or was canceled. */}
                {(p.status === 'pending' || p.status === 'in_transit') && (
                  <>
                    <dt>{t('expectedBy')}</dt>
                    <dd>{formatWhen(language, p.expected_by)}</dd>
                    {p.arrival_date_estimate && (
                      <>
                        <dt>{t('arrival')}</dt>
                        <dd>{formatWhen(language, p.arrival_date_estimate)}</dd>
                      </>
                    )}
                    <dt>{t('delay')}</dt>
                    <dd>{p.delay_state === 'delayed' ? t('delayedSince', { when: formatWhen(language, p.delayed_at), reason: t(`reason.${p.delay_reason ?? 'unknown'}`) }) : t('onTime')}</dd>
                  </>
                )}
                {p.review_status && (
                  <>
                    <dt>{t('review')}</dt>
                    <dd>
                      <Badge status={p.review_status === 'declined' ? 'failed' : p.review_status === 'held' ? 'pending' : 'released'}>{t(`review.${p.review_status}`)}</Badge>
                    </dd>
                  </>
                )}
                {p.status === 'paid' && paidAt !== undefined && (
                  <>
                    <dt>{t('paidAt')}</dt>
                    <dd>{formatWhen(language, paidAt)}</dd>
                  </>
                )}
                {p.status === 'failed' && (
                  <>
                    <dt>{t('failure.reason')}</dt>
                    <dd>
                      <FailureReason subject="payout" code={p.failure_code} message={p.failure_message} />
                    </dd>
                  </>
                )}
              </dl>
              {p.review_status === 'held' && canPayOut && <ReviewDecision payoutId={p.id} environment={environment} onSignedOut={onSignedOut} />}
              <ObjectDecisions id="payout-decisions" subject={p.id} pageKey={['payout', environment, payoutId]} follow={['pending', 'in_transit'].includes(p.status) ? FOLLOW_MS : false} onSignedOut={onSignedOut} />
              <section aria-labelledby="payout-money">
                <h2 id="payout-money">{t('money')}</h2>
                <QueryView query={money} isEmpty={(m) => m.length === 0} empty={t('moneyNone')}>
                  {(m) => <BalanceTransactionsTable transactions={m} labelledBy="payout-money" showStatus />}
                </QueryView>
              </section>
              <ObjectHistory id="payout-history" query={history} words={payoutEventWords} status={(status) => shared(`payouts.status.${status}` as 'payouts.status.paid')} environment={environment} onSignedOut={onSignedOut} />
            </>
          );
        }}
      </QueryView>
    </main>
  );
}
