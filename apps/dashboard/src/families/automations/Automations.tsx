import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState } from 'react';
import type { Environment } from '../../../../../clients/typescript/src/index.js';
import { CopyButton, CursorPager, Link, QueryView, Scrollable, useCursorPages, FilterSelect } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { AutomationEditor } from './AutomationEditor.js';
import { automationMessages as messages } from './automations.messages.js';
import { ACTIONS, automationsKey, LOG_STATUSES, useTriggerText, type Action, type Automation, type LogStatus } from './automations.shared.js';
import type { PageProps } from '../../shell/props.js';

const AUTOMATION_STATUSES = ['enabled', 'disabled'] as const;
type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

/** Automations: the environment's list with each one's last run, a new one (its secret shown once), and the step log of every run. */
export function Automations({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const triggerText = useTriggerText();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Automation | null>(null);
  const [status, setStatus] = useState<'' | AutomationStatus>('');
  const pages = useCursorPages(`${environment}/${status}`);
  const after = pages.after;
  const list = useQuery({
    queryKey: [...automationsKey(environment), 'list', status, after],
    queryFn: () =>
      withSession(() => sika.get('/api/v1/automations', { params: { query: { limit: 20, ...(status ? { status } : {}), ...(after ? { starting_after: after } : {}) } } }), onSignedOut) as Promise<unknown> as Promise<{
        data: Automation[];
        has_more: boolean;
      }>,
  });
  const create = async (definition: object) => {
    const automation = (await sika.post('/api/v1/automations', { body: definition as never })) as unknown as Automation;
    setCreated(automation);
    setCreating(false);
    pages.reset();
    await queries.invalidateQueries({ queryKey: automationsKey(environment) });
  };

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <p>{t('intro')}</p>
      {created && (
        <div className="panel secret" role="status">
          <p>{t('createdSecret', { name: created.name })}</p>
          <code>{created.secret}</code>
          <div className="actions">
            <CopyButton text={created.secret ?? ''} label={`${t('action.copy')}: ${t('secret')}`} />
            <Link to="automation" id={created.id}>
              {t('open', { name: created.name })}
            </Link>
            <button type="button" className="secondary" onClick={() => setCreated(null)}>
              {t('action.done')}
            </button>
          </div>
        </div>
      )}
      <section aria-labelledby="new-automation">
        <h2 id="new-automation">{t('new')}</h2>
        {creating ? (
          <AutomationEditor environment={environment} onSignedOut={onSignedOut} label={t('new')} initial={null} submitLabel={t('create')} withEnabled onSubmit={create} onCancel={() => setCreating(false)} />
        ) : (
          <button
            type="button"
            onClick={() => {
              setCreated(null);
              setCreating(true);
            }}
          >
            {t('new')}
          </button>
        )}
      </section>

      <h2 id="automations-list">{t('list')}</h2>
      <FilterSelect label={t('show')} value={status} values={AUTOMATION_STATUSES} any={t('all')} words={(s) => t(`status.${s}`)} onChange={setStatus} />
      <QueryView query={list} isEmpty={(l) => l.data.length === 0 && pages.isFirst} empty={t('none')}>
        {(l) => (
          <>
            <Scrollable labelledBy="automations-list">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('name')}</th>
                    <th scope="col">{t('trigger')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('lastRun')}</th>
                    <th scope="col">{t('created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {l.data.map((a) => (
                    <tr key={a.id}>
                      <th scope="row">
                        <Link to="automation" id={a.id}>
                          {a.name}
                        </Link>
                      </th>
                      <td>{triggerText(a.trigger)}</td>
                      <td>
                        <Badge status={a.disabledReason === 'failures' && a.status === 'disabled' ? 'failures' : a.status}>{t(a.disabledReason === 'failures' && a.status === 'disabled' ? 'status.failures' : `status.${a.status}`)}</Badge>
                      </td>
                      <td>{a.lastRun ? `${formatWhen(language, a.lastRun.startedAt)} — ${t(`run.${a.lastRun.status}`)}` : t('never')}</td>
                      <td>{formatWhen(language, a.created)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('pages')} hasMore={l.has_more} lastId={l.data.at(-1)?.id} />
          </>
        )}
      </QueryView>
      <StepLogs environment={environment} onSignedOut={onSignedOut} names={new Map((list.data?.data ?? []).map((a) => [a.id, a.name]))} />
    </main>
  );
}

/** Every attempt of every step of the environment's runs, newest first, by status and action (GET /api/v1/automations/logs). */
function StepLogs({ environment, onSignedOut, names }: { environment: Environment; onSignedOut: () => void; names: Map<string, string> }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const [status, setStatus] = useState<'' | LogStatus>('');
  const [action, setAction] = useState<'' | Action>('');
  const pages = useCursorPages(`${environment}/${status}/${action}`);
  const after = pages.after;
  const logs = useQuery({
    queryKey: [...automationsKey(environment), 'logs', status, action, after],
    queryFn: () =>
      withSession(
        () =>
          sika.get('/api/v1/automations/logs', {
            params: { query: { limit: 20, ...(status ? { status } : {}), ...(action ? { action } : {}), ...(after ? { starting_after: after } : {}) } },
          }),
        onSignedOut,
      ),
  });
  return (
    <section aria-labelledby="step-log">
      <h2 id="step-log">{t('log.title')}</h2>
      <p>{t('log.intro')}</p>
      <div className="inline-form">
        <FilterSelect label={t('status')} value={status} values={LOG_STATUSES} any={t('all')} words={(s) => t(`log.${s}`)} onChange={setStatus} inline={false} />
        <FilterSelect label={t('log.action')} value={action} values={ACTIONS} any={t('all')} words={(a) => t(`action.${a}`)} onChange={setAction} inline={false} />
      </div>
      <QueryView query={logs} isEmpty={(l) => l.data.length === 0 && pages.isFirst} empty={t('log.none')}>
        {(l) => (
          <>
            <Scrollable labelledBy="step-log">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('log.when')}</th>
                    <th scope="col">{t('automation')}</th>
                    <th scope="col">{t('log.step')}</th>
                    <th scope="col">{t('log.action')}</th>
                    <th scope="col">{t('log.attempt')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('log.duration')}</th>
                    <th scope="col">{t('run.error')}</th>
                  </tr>
                </thead>
                <tbody>
                  {l.data.map((log) => (
                    <tr key={log.id}>
                      <th scope="row">{formatWhen(language, log.startedAt, 'second')}</th>
                      <td>
                        <Link to="automation" id={log.automation}>
                          {names.get(log.automation) ?? log.automation}
                        </Link>
                      </td>
                      <td>
                        <code>{log.step}</code>
                      </td>
                      <td>{t(`action.${log.action}`)}</td>
                      <td>{log.attempt}</td>
                      <td>
                        <Badge status={log.status}>{t(`log.${log.status}`)}</Badge>
                      </td>
                      <td>{t('log.durationMs', { ms: log.durationMs })}</td>
                      <td>{log.error ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('log.pages')} hasMore={l.has_more} lastId={l.data.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </section>
  );
}
