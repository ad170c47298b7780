import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { ObjectHeading, QueryView, Scrollable } from '../../../src/shell/components.js';
import { formatAmount, formatWhen, LanguageContext, type Messages } from '../../../src/shell/i18n.js';
import { Link, type ConsolePageProps } from '../components.js';
import { railName } from '../rails/railWords.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { RECONCILES } from './Reconciliation.js';
import { actorText, RECONCILIATION_WORDS } from './reconciliationWords.js';

const WORDS = {
  en: {
    ...RECONCILIATION_WORDS.en,
    'run.title': '{rail} reconciliation, {environment}',
    'run.back': 'Every run',
    'run.wallets': 'Wallets',
    'run.walletsIntro': 'The currencies whose balance the rail reports differs from what the ledger expects it to hold.',
    'run.walletsNone': 'Every wallet holds what the ledger expects.',
    'run.currency': 'Currency',
    'run.expected': 'Expected',
    'run.reported': 'Reported',
    'run.difference': 'Difference',
    'run.attempts': 'Attempts',
    'run.attemptsIntro': 'The attempts whose state at Sika differs from the rail’s record.',
    'run.attemptsNone': 'Every attempt checked matches the rail’s record.',
    'run.kind': 'What',
    'run.kind.payment': 'Payment',
    'run.kind.payout': 'Payout',
    'run.kind.refund': 'Refund',
    'run.id': 'Id',
    'run.merchant': 'Merchant',
    'run.sika': 'At Sika',
    'run.rail': 'Rail says',
    'run.rail.succeeded': 'Succeeded',
    'run.rail.failed': 'Failed',
    'run.rail.pending': 'Pending',
    'run.rail.not_found': 'Not found',
    'run.reportedAmount': 'Rail amount',
  },
  fr: {
    ...RECONCILIATION_WORDS.fr,
    'run.title': 'Rapprochement {rail}, {environment}',
    'run.back': 'Tous les rapprochements',
    'run.wallets': 'Portefeuilles',
    'run.walletsIntro': 'Les devises dont le solde déclaré par le rail diffère de ce que le grand livre attend.',
    'run.walletsNone': 'Chaque portefeuille contient ce que le grand livre attend.',
    'run.currency': 'Devise',
    'run.expected': 'Attendu',
    'run.reported': 'Déclaré',
    'run.difference': 'Écart',
    'run.attempts': 'Tentatives',
    'run.attemptsIntro': 'Les tentatives dont l’état chez Sika diffère du relevé du rail.',
    'run.attemptsNone': 'Chaque tentative vérifiée correspond au relevé du rail.',
    'run.kind': 'Quoi',
    'run.kind.payment': 'Paiement',
    'run.kind.payout': 'Versement',
    'run.kind.refund': 'Remboursement',
    'run.id': 'Identifiant',
    'run.merchant': 'Marchand',
    'run.sika': 'Chez Sika',
    'run.rail': 'Le rail dit',
    'run.rail.succeeded': 'Réussi',
    'run.rail.failed': 'Échoué',
    'run.rail.pending': 'En attente',
    'run.rail.not_found': 'Introuvable',
    'run.reportedAmount': 'Montant rail',
  },
} satisfies Messages<string>;

const RAIL_RECORDS = ['succeeded', 'failed', 'pending', 'not_found'] as const;

/** One reconciliation run as recorded: who ran it, when, and every difference it found. */
export function ReconciliationRun({ operator, id = '' }: ConsolePageProps) {
  const t = useConsoleT(WORDS);
  const { language } = useContext(LanguageContext);
  const reconciles = RECONCILES.includes(operator.role);
  const run = useQuery({
    queryKey: ['operator-reconciliation-runs', 'one', id],
    queryFn: () => api.get('/api/v1/operator/reconciliation-runs/{id}', { params: { path: { id } } }),
    enabled: reconciles,
  });
  if (!reconciles)
    return (
      <main className="page reconciliation">
        <h1>{t('recon.title')}</h1>
        <p role="note">{t('console.notForRole', { role: t(`console.role.${operator.role}`) })}</p>
      </main>
    );
  return (
    <main className="page reconciliation">
      <p>
        <Link to="reconciliation">{t('run.back')}</Link>
      </p>
      <QueryView query={run}>
        {(r) => (
          <>
            <ObjectHeading name={t('run.title', { rail: railName(t, r.rail), environment: t(`environment.${r.environment ?? 'live'}`) })} id={r.runId} />
            <dl className="facts">
              <div>
                <dt>{t('recon.ranAt')}</dt>
                <dd>{formatWhen(language, r.ranAt, 'second')}</dd>
              </div>
              <div>
                <dt>{t('recon.actor')}</dt>
                <dd>{actorText(t, r.actor, operator.id)}</dd>
              </div>
              <div>
                <dt>{t('recon.checked')}</dt>
                <dd>{r.checked}</dd>
              </div>
              <div>
                <dt>{t('recon.differences')}</dt>
                <dd>{t('recon.differenceCounts', { wallets: r.wallets.length, attempts: r.attempts.length })}</dd>
              </div>
            </dl>
            <section aria-labelledby="run-wallets">
              <h2 id="run-wallets">{t('run.wallets')}</h2>
              {r.wallets.length === 0 ? (
                <p>{t('run.walletsNone')}</p>
              ) : (
                <>
                  <p className="help">{t('run.walletsIntro')}</p>
                  <Scrollable labelledBy="run-wallets">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('run.currency')}</th>
                          <th scope="col">{t('run.expected')}</th>
                          <th scope="col">{t('run.reported')}</th>
                          <th scope="col">{t('run.difference')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {r.wallets.map((w) => (
                          <tr key={w.currency}>
                            <th scope="row">{(w.currency ?? '').toUpperCase()}</th>
                            <td className="amount">{formatAmount(language, w.expected ?? 0, w.currency ?? 'xof')}</td>
                            <td className="amount">{formatAmount(language, w.reported ?? 0, w.currency ?? 'xof')}</td>
                            <td className="amount">{formatAmount(language, w.difference ?? 0, w.currency ?? 'xof')}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scrollable>
                </>
              )}
            </section>
            <section aria-labelledby="run-attempts">
              <h2 id="run-attempts">{t('run.attempts')}</h2>
              {r.attempts.length === 0 ? (
                <p>{t('run.attemptsNone')}</p>
              ) : (
                <>
                  <p className="help">{t('run.attemptsIntro')}</p>
                  <Scrollable labelledBy="run-attempts">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('run.kind')}</th>
                          <th scope="col">{t('run.id')}</th>
                          <th scope="col">{t('run.merchant')}</th>
                          <th scope="col">{t('run.sika')}</th>
                          <th scope="col">{t('run.rail')}</th>
                          <th scope="col">{t('run.reportedAmount')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {r.attempts.map((a) => (
                          <tr key={a.id}>
                            <th scope="row">{t(`run.kind.${a.kind ?? 'payment'}`)}</th>
                            <td>
                              <code>{a.id}</code>
                            </td>
                            <td>
                              <Link to="merchant" id={a.merchantId ?? ''}>
                                <code>{a.merchantId}</code>
                              </Link>
                            </td>
                            <td>{a.sika}</td>
                            <td>{RAIL_RECORDS.find((s) => s === a.rail) ? t(`run.rail.${a.rail as (typeof RAIL_RECORDS)[number]}`) : a.rail}</td>
                            <td className="amount">{a.reportedAmount?.amount !== undefined ? formatAmount(language, a.reportedAmount.amount, a.reportedAmount.currency ?? 'xof') : '—'}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scrollable>
                </>
              )}
            </section>
          </>
        )}
      </QueryView>
    </main>
  );
}
