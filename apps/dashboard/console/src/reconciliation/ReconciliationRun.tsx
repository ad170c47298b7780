import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { ObjectHeading, QueryView, Scrollable } from '../../../src/shell/components.js';
import { formatAmount, formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { Link, type ConsolePageProps } from '../components.js';
import { railName } from '../rails/railWords.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { RECONCILES } from './Reconciliation.js';
import { actorText } from './reconciliationWords.js';
import { reconciliationRunMessages } from './reconciliationRun.messages.js';

const RAIL_RECORDS = ['succeeded', 'failed', 'pending', 'not_found'] as const;

/** One reconciliation run as recorded: who ran it, when, and every difference it found. */
export function ReconciliationRun({ operator, id = '' }: ConsolePageProps) {
  const t = useConsoleT(reconciliationRunMessages);
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
