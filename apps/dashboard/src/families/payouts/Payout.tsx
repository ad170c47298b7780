import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { BalanceTransactionsTable } from '../../shell/BalanceTransactions.js';
import { ErrorMessage, errorText, isNotFound, Link, NotFound, QueryView, retryUnlessNotFound, useCanWrite } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, useMessages, useT, type Language, type Messages } from '../../shell/i18n.js';
import { ObjectDecisions } from '../../shell/ObjectDecisions.js';
import { ObjectHistory } from '../../shell/ObjectHistory.js';
import { FailureReason } from '../../shell/failures.js';
import { useCatalogNames } from '../../shell/countries.js';
import { destinationText } from '../../shell/destinations.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';

/** While a payout waits for its operator, its page asks again this often. */
const FOLLOW_MS = 5000;

/** What an event of a payout's history says happened. */
const EVENTS: Record<string, Record<Language, string>> = {
  'payout.created': { en: 'Created', fr: 'Créé' },
  'payout.updated': { en: 'Sent to the operator', fr: 'Envoyé à l’opérateur' },
  'payout.delayed': { en: 'Delayed', fr: 'Retardé' },
  'payout.paid': { en: 'Paid', fr: 'Payé' },
  'payout.failed': { en: 'Failed', fr: 'Échoué' },
  'payout.canceled': { en: 'Canceled', fr: 'Annulé' },
};

type DelayReason = 'operator_pending' | 'operator_timeout' | 'operator_down' | 'provider_action_required' | 'unknown';

const messages: Messages<
  | 'back'
  | 'notFound'
  | 'destination'
  | 'expectedBy'
  | 'arrival'
  | 'delay'
  | 'onTime'
  | 'paidAt'
  | 'delayedSince'
  | 'money'
  | 'moneyNone'
  | `reason.${DelayReason}`
  | 'review'
  | 'review.held'
  | 'review.released'
  | 'review.declined'
  | 'review.help'
  | 'review.release'
  | 'review.decline'
  | 'review.reason'
  | 'review.declineSubmit'
  | 'review.cancel'
  | 'review.failed'
> = {
  en: {
    back: 'All payouts',
    notFound: 'No such payout in this environment.',
    destination: 'Destination',
    expectedBy: 'Expected by',
    arrival: 'Estimated arrival',
    delay: 'Delay',
    onTime: 'On time',
    paidAt: 'Paid at',
    delayedSince: 'Delayed since {when}: {reason}',
    money: 'Its money on the balance',
    moneyNone: 'Nothing on the balance yet.',
    'reason.operator_pending': 'the operator has not answered yet',
    'reason.operator_timeout': 'the operator did not answer in time',
    'reason.operator_down': 'the operator is down',
    'reason.provider_action_required': 'the provider needs an action of Sika’s operator (a bank transfer waiting for an OTP)',
    'reason.unknown': 'unknown',
    review: 'Review',
    'review.held': 'Held for review',
    'review.released': 'Released after review',
    'review.declined': 'Declined in review',
    'review.help': 'Your risk rules held this payout: its amount and fee are held on your balance and nothing is sent until you release it. Declined, it fails and its money goes back to your available balance.',
    'review.release': 'Release',
    'review.decline': 'Decline',
    'review.reason': 'Reason (optional)',
    'review.declineSubmit': 'Decline the payout',
    'review.cancel': 'Cancel',
    'review.failed': 'The payout could not be released or declined.',
  },
  fr: {
    back: 'Tous les virements',
    notFound: 'Aucun virement de ce nom dans cet environnement.',
    destination: 'Destination',
    expectedBy: 'Attendu avant',
    arrival: 'Arrivée estimée',
    delay: 'Retard',
    onTime: 'À l’heure',
    paidAt: 'Payé le',
    delayedSince: 'Retardé depuis {when} : {reason}',
    money: 'Son argent sur le solde',
    moneyNone: 'Rien sur le solde pour l’instant.',
    'reason.operator_pending': 'l’opérateur n’a pas encore répondu',
    'reason.operator_timeout': 'l’opérateur n’a pas répondu à temps',
    'reason.operator_down': 'l’opérateur est indisponible',
    'reason.provider_action_required': 'le prestataire attend une action de l’opérateur de Sika (un virement bancaire en attente d’un OTP)',
    'reason.unknown': 'inconnu',
    review: 'Examen',
    'review.held': 'Retenu pour examen',
    'review.released': 'Libéré après examen',
    'review.declined': 'Refusé à l’examen',
    'review.help': 'Vos règles de risque ont retenu ce virement : son montant et ses frais sont bloqués sur votre solde et rien n’est envoyé tant que vous ne le libérez pas. Refusé, il échoue et son argent revient sur votre solde disponible.',
    'review.release': 'Libérer',
    'review.decline': 'Refuser',
    'review.reason': 'Motif (facultatif)',
    'review.declineSubmit': 'Refuser le virement',
    'review.cancel': 'Annuler',
    'review.failed': 'Le virement n’a pas pu être libéré ni refusé.',
  },
};

/**
 * A payout the risk rules held for review (docs/risk.md, "Review"): released, it is sent now;
 * declined (with an optional reason), it fails and its money goes back to available. One
 * Idempotency-Key per decision shown, so a second press decides nothing twice.
 */
function ReviewDecision({ payoutId, environment, onSignedOut }: { payoutId: string; environment: string; onSignedOut: () => void }) {
  const t = useMessages(messages);
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
  const t = useMessages(messages);
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
              <ObjectHistory id="payout-history" query={history} words={EVENTS} status={(status) => shared(`payouts.status.${status}` as 'payouts.status.paid')} environment={environment} onSignedOut={onSignedOut} />
            </>
          );
        }}
      </QueryView>
    </main>
  );
}
