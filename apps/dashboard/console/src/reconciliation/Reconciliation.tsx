import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { CursorPager, ErrorMessage, QueryView, Scrollable, useCursorPages } from '../../../src/shell/components.js';
import { formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { Link, useOperatorAction, type ConsolePageProps } from '../components.js';
import { railName, type Environment } from '../rails/railWords.js';
import { EnvironmentSelect } from '../rails/EnvironmentSelect.js';
import { api, type OperatorRole } from '../session.js';
import { useConsoleT } from '../words.js';
import { actorText, RECONCILIATION_WORDS as WORDS } from './reconciliationWords.js';
import './reconciliation.css';

/** The roles that reconcile (the API decides: IKW-OPR-001 otherwise). */
export const RECONCILES: readonly OperatorRole[] = ['finance', 'admin'];

const RUNS = 'operator-reconciliation-runs';
type Run = Answer<'post', '/api/v1/operator/reconciliation-runs'>;

/** Reconcile a rail of an environment, and the history of every run, the console's and the command line's (docs/operator.md, "Reconciliation"). */
export function Reconciliation({ operator, onSignedOut }: ConsolePageProps) {
  const t = useConsoleT(WORDS);
  return (
    <main className="page reconciliation">
      <h1>{t('recon.title')}</h1>
      {RECONCILES.includes(operator.role) ? (
        <>
          <p className="help">{t('recon.intro')}</p>
          <RunForm onSignedOut={onSignedOut} />
          <History me={operator.id} />
        </>
      ) : (
        <p role="note">{t('console.notForRole', { role: t(`console.role.${operator.role}`) })}</p>
      )}
    </main>
  );
}

/** The environment, then one of its configured rails (what `GET /operator/rails` names), then the run's summary. */
function RunForm({ onSignedOut }: { onSignedOut: () => void }) {
  const t = useConsoleT(WORDS);
  const [environment, setEnvironment] = useState<Environment>('live');
  const [done, setDone] = useState<Run | null>(null);
  const rails = useQuery({ queryKey: ['operator-rails', environment], queryFn: () => api.get('/api/v1/operator/rails', { params: { query: { environment } } }) });
  const { action, error } = useOperatorAction(onSignedOut, [[RUNS]]);
  const run = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const rail = String(new FormData(e.currentTarget).get('rail'));
    setDone(null);
    action.mutate(async () => setDone(await api.post('/api/v1/operator/reconciliation-runs', { body: { rail, environment } })));
  };
  return (
    <section aria-labelledby="recon-run">
      <h2 id="recon-run">{t('recon.run')}</h2>
      <ErrorMessage text={error} />
      {done && (
        <p role="status">
          {t('recon.done', { id: done.runId, checked: done.checked, differences: done.wallets.length + done.attempts.length })}{' '}
          <Link to="reconciliationRun" id={done.runId}>
            {t('recon.open')}
          </Link>
        </p>
      )}
      <form className="inline-form" onSubmit={run} aria-labelledby="recon-run">
        <EnvironmentSelect label={t('recon.environment')} value={environment} onChange={setEnvironment} nameOf={(env) => t(`environment.${env}`)} />
        <QueryView query={rails} isEmpty={(r) => r.rails.length === 0} empty={t('recon.noRail', { environment: t(`environment.${environment}`) })}>
          {(r) => (
            <>
              <label>
                {t('recon.rail')}
                <select name="rail" key={environment}>
                  {r.rails.map((rail) => (
                    <option key={rail} value={rail}>
                      {railName(t, rail)}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" disabled={action.isPending}>
                {action.isPending ? t('recon.running') : t('recon.submit')}
              </button>
            </>
          )}
        </QueryView>
      </form>
    </section>
  );
}

/** Every recorded run, newest first, a page at a time. */
function History({ me }: { me: string }) {
  const t = useConsoleT(WORDS);
  const { language } = useContext(LanguageContext);
  const pages = useCursorPages('runs');
  const runs = useQuery({
    queryKey: [RUNS, pages.after],
    queryFn: () => api.get('/api/v1/operator/reconciliation-runs', { params: { query: { limit: 20, ...(pages.after ? { starting_after: pages.after } : {}) } } }),
  });
  return (
    <section aria-labelledby="recon-history">
      <h2 id="recon-history">{t('recon.history')}</h2>
      <QueryView query={runs} isEmpty={(r) => r.data.length === 0 && pages.isFirst} empty={t('recon.empty')}>
        {(r) => (
          <>
            <Scrollable labelledBy="recon-history">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('recon.ranAt')}</th>
                    <th scope="col">{t('recon.rail')}</th>
                    <th scope="col">{t('recon.environment')}</th>
                    <th scope="col">{t('recon.actor')}</th>
                    <th scope="col" className="amount">
                      {t('recon.checkedShort')}
                    </th>
                    <th scope="col">{t('recon.differences')}</th>
                  </tr>
                </thead>
                <tbody>
                  {r.data.map((run) => (
                    <tr key={run.runId}>
                      <th scope="row">
                        <Link to="reconciliationRun" id={run.runId}>
                          {formatWhen(language, run.ranAt, 'second')}
                        </Link>
                      </th>
                      <td>{railName(t, run.rail)}</td>
                      <td>{t(`environment.${run.environment ?? 'live'}`)}</td>
                      <td className="wrap actor">{actorText(t, run.actor, me)}</td>
                      <td className="amount">{run.checked}</td>
                      <td>
                        <strong>{run.wallets.length + run.attempts.length}</strong>
                        <span className="row-detail">{t('recon.differenceCounts', { wallets: run.wallets.length, attempts: run.attempts.length })}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('recon.pages')} hasMore={r.has_more} lastId={r.data.at(-1)?.runId} />
          </>
        )}
      </QueryView>
    </section>
  );
}
