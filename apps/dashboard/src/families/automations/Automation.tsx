import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import type { Environment } from '../../../../../clients/typescript/src/index.js';
import { CursorPager, ErrorMessage, errorText, isNotFound, Link, NavigationContext, NotFound, QueryView, retryUnlessNotFound, Scrollable, useAction, useCursorPages, FilterSelect } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { AutomationEditor } from './AutomationEditor.js';
import { automationMessages as messages } from './automations.messages.js';
import { automationsKey, RUN_STATUSES, RunDetail, useCatalogs, useRunTriggerText, useTriggerText, type Automation as AutomationObject, type AutomationVersion, type Definition, type Run, type RunStatus } from './automations.shared.js';
import type { PageProps } from '../../shell/props.js';

/** One automation: what it is, enable / disable, edit (a new version), delete; a test run with its result; its runs with each one's log; its versions. */
export function Automation({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const triggerText = useTriggerText();
  const go = useContext(NavigationContext);
  const queries = useQueryClient();
  const automationId = id ?? '';
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const automation = useQuery({
    queryKey: [...automationsKey(environment), automationId, 'one'],
    queryFn: () => withSession(() => sika.get('/api/v1/automations/{id}', { params: { path: { id: automationId } } }), onSignedOut) as Promise<unknown> as Promise<AutomationObject>,
    retry: retryUnlessNotFound,
  });
  const { action, error, setError } = useAction(onSignedOut, [automationsKey(environment)]);
  const path = { params: { path: { id: automationId } } };
  // Gone: its queries are dropped, not asked again (they would be refused), and so are the lists that name it, read afresh.
  const remove = useMutation({
    mutationFn: () => withSession(() => sika.delete('/api/v1/automations/{id}', path), onSignedOut),
    onMutate: () => setError(null),
    onSuccess: () => {
      go('automations');
      queries.removeQueries({ queryKey: [...automationsKey(environment), automationId] });
      queries.removeQueries({ queryKey: [...automationsKey(environment), 'list'] });
      void queries.invalidateQueries({ queryKey: automationsKey(environment) });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  const save = async (definition: Definition) => {
    const saved = (await sika.patch('/api/v1/automations/{id}', { ...path, body: definition as never })) as unknown as AutomationObject;
    setEditing(false);
    setNotice(t('saved', { version: saved.version }));
    await queries.invalidateQueries({ queryKey: automationsKey(environment) });
  };

  if (automation.isError && isNotFound(automation.error)) return <NotFound title={t('automation')} message={t('notFound')} back="automations" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="automations">{t('back')}</Link>
      </p>
      <QueryView query={automation}>
        {(a) => (
          <>
            <h1 className="id-title">{a.name}</h1>
            <ErrorMessage text={error} />
            {notice && <p role="status">{notice}</p>}
            <dl className="facts">
              <dt>{t('status')}</dt>
              <dd>
                <Badge status={a.status === 'disabled' && a.disabledReason === 'failures' ? 'failures' : a.status}>{t(a.status === 'disabled' && a.disabledReason === 'failures' ? 'status.failures' : `status.${a.status}`)}</Badge>
              </dd>
              <dt>{t('trigger')}</dt>
              <dd>{triggerText(a.trigger)}</dd>
              {a.description && (
                <>
                  <dt>{t('description')}</dt>
                  <dd>{a.description}</dd>
                </>
              )}
              <dt>{t('steps')}</dt>
              <dd>
                <ol className="compact">
                  {a.steps.map((s) => (
                    <li key={s.id}>
                      <code>{s.id}</code> — {t(`action.${s.action}`)}
                    </li>
                  ))}
                </ol>
              </dd>
              <dt>{t('version')}</dt>
              <dd>{a.version}</dd>
              <dt>{t('secret')}</dt>
              <dd>
                <code>…{a.secretLast4}</code>
              </dd>
              <dt>{t('created')}</dt>
              <dd>{formatWhen(language, a.created)}</dd>
              <dt>{t('updated')}</dt>
              <dd>{formatWhen(language, a.updated)}</dd>
            </dl>
            <div className="actions">
              <button
                type="button"
                className="secondary"
                disabled={action.isPending}
                onClick={() => {
                  setNotice(null);
                  action.mutate(() => (a.status === 'enabled' ? sika.post('/api/v1/automations/{id}/disable', path) : sika.post('/api/v1/automations/{id}/enable', path)));
                }}
              >
                {t(a.status === 'enabled' ? 'disable' : 'enable')}
              </button>
              <button type="button" className="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
                {t('edit')}
              </button>
              <button type="button" className="danger" disabled={remove.isPending} onClick={() => window.confirm(t('deleteConfirm', { name: a.name })) && remove.mutate()}>
                {t('delete')}
              </button>
            </div>
            {editing && (
              <section aria-labelledby="edit-automation">
                <h2 id="edit-automation">{t('editTitle')}</h2>
                <AutomationEditor key={a.version} environment={environment} onSignedOut={onSignedOut} label={t('editTitle')} initial={a} submitLabel={t('save')} onSubmit={save} onCancel={() => setEditing(false)} />
              </section>
            )}
            <TestRun environment={environment} onSignedOut={onSignedOut} automation={a} />
            <Runs environment={environment} onSignedOut={onSignedOut} automationId={a.id} />
            <Versions environment={environment} onSignedOut={onSignedOut} automation={a} />
          </>
        )}
      </QueryView>
    </main>
  );
}

/** A test run with a sample event (its type and data), and its result as it runs. */
function TestRun({ environment, onSignedOut, automation }: { environment: Environment; onSignedOut: () => void; automation: AutomationObject }) {
  const t = useMessages(messages);
  const { triggers } = useCatalogs(environment, onSignedOut);
  const [eventType, setEventType] = useState('');
  const [data, setData] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const { action, error } = useAction(onSignedOut, [automationsKey(environment)]);
  const ownType = automation.trigger.type === 'event' ? automation.trigger.eventType : 'schedule.tick';
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setRunId(null);
    let sample: unknown = undefined;
    if (data.trim()) {
      try {
        sample = JSON.parse(data) as unknown;
      } catch {
        // Sent as typed: the API says what it expects.
        sample = data;
      }
    }
    const event = { ...(eventType ? { type: eventType } : {}), ...(sample !== undefined ? { data: sample } : {}) };
    action.mutate(() => sika.post('/api/v1/automations/{id}/test', { params: { path: { id: automation.id } }, body: { event } as never }), {
      onSuccess: (run) => setRunId((run as Run).id),
    });
  };
  return (
    <section aria-labelledby="test-run">
      <h2 id="test-run">{t('test.title')}</h2>
      <p className="muted">{t('test.help')}</p>
      <form aria-labelledby="test-run" onSubmit={submit}>
        <ErrorMessage text={error} />
        <label>
          {t('test.eventType')}
          <select value={eventType} onChange={(e) => setEventType(e.target.value)}>
            <option value="">{t('test.triggerType', { type: ownType })}</option>
            {(triggers.data?.data ?? [])
              .filter((e) => e.type === 'event')
              .map((e) => (
                <option key={e.eventType} value={e.eventType}>
                  {e.eventType}
                </option>
              ))}
          </select>
        </label>
        <label>
          {t('test.data')}
          <textarea value={data} onChange={(e) => setData(e.target.value)} rows={3} spellCheck={false} aria-describedby="test-data-help" />
        </label>
        <p className="muted" id="test-data-help">
          {t('test.dataHelp')}
        </p>
        <button type="submit" disabled={action.isPending}>
          {t('test.run')}
        </button>
      </form>
      {runId && <RunDetail key={runId} environment={environment} onSignedOut={onSignedOut} automationId={automation.id} runId={runId} title={t('test.result')} />}
    </section>
  );
}

/** The automation's runs, newest first, by status; one opens with its log (and can be canceled while it runs or waits). */
function Runs({ environment, onSignedOut, automationId }: { environment: Environment; onSignedOut: () => void; automationId: string }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const runText = useRunTriggerText();
  const [status, setStatus] = useState<'' | RunStatus>('');
  const [open, setOpen] = useState<Run | null>(null);
  const pages = useCursorPages(`${environment}/${status}`);
  const after = pages.after;
  const runs = useQuery({
    queryKey: [...automationsKey(environment), automationId, 'runs', status, after],
    queryFn: () =>
      withSession(
        () =>
          sika.get('/api/v1/automations/{id}/runs', {
            params: { path: { id: automationId }, query: { limit: 20, ...(status ? { status } : {}), ...(after ? { starting_after: after } : {}) } },
          }),
        onSignedOut,
      ),
    // A run under way is read again until it ends or waits.
    refetchInterval: (query) => (query.state.data?.data.some((r) => r.status === 'running') ? 2000 : false),
  });
  return (
    <section aria-labelledby="runs">
      <h2 id="runs">{t('runs')}</h2>
      <FilterSelect label={t('show')} value={status} values={RUN_STATUSES} any={t('all')} words={(s) => t(`run.${s}`)} onChange={setStatus} />
      <QueryView query={runs} isEmpty={(l) => l.data.length === 0 && pages.isFirst} empty={t('runs.none')}>
        {(l) => (
          <>
            <Scrollable labelledBy="runs">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('run.started')}</th>
                    <th scope="col">{t('run.trigger')}</th>
                    <th scope="col">{t('version')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('run.finished')}</th>
                    <th scope="col">{t('runs.open')}</th>
                  </tr>
                </thead>
                <tbody>
                  {l.data.map((r) => {
                    const when = formatWhen(language, r.startedAt, 'second');
                    return (
                      <tr key={r.id}>
                        <th scope="row">{when}</th>
                        <td>{runText(r)}</td>
                        <td>{r.automationVersion}</td>
                        <td>
                          <Badge status={r.status}>{t(`run.${r.status}`)}</Badge>
                        </td>
                        <td>{formatWhen(language, r.finishedAt, 'second')}</td>
                        <td className="row-actions">
                          <button type="button" className="secondary" aria-expanded={open?.id === r.id} aria-label={t('runs.openNamed', { when })} onClick={() => setOpen(open?.id === r.id ? null : r)}>
                            {t('runs.open')}
                          </button>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('runs.pages')} hasMore={l.has_more} lastId={l.data.at(-1)?.id} />
          </>
        )}
      </QueryView>
      {open && (
        <RunDetail
          key={open.id}
          environment={environment}
          onSignedOut={onSignedOut}
          automationId={automationId}
          runId={open.id}
          title={t('runs.title', { when: formatWhen(language, open.startedAt, 'second') })}
          onClose={() => setOpen(null)}
        />
      )}
    </section>
  );
}

/** Every version of the definition, newest first; an earlier one restored as a new version. */
function Versions({ environment, onSignedOut, automation }: { environment: Environment; onSignedOut: () => void; automation: AutomationObject }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const triggerText = useTriggerText();
  const [restored, setRestored] = useState<string | null>(null);
  const versions = useQuery({
    queryKey: [...automationsKey(environment), automation.id, 'versions'],
    queryFn: () => withSession(() => sika.get('/api/v1/automations/{id}/versions', { params: { path: { id: automation.id } } }), onSignedOut) as Promise<unknown> as Promise<{ data: AutomationVersion[] }>,
  });
  const { action, error } = useAction(onSignedOut, [automationsKey(environment)]);
  const restore = (v: AutomationVersion) => {
    setRestored(null);
    const definition: Definition = { name: v.name, description: v.description, trigger: v.trigger, steps: v.steps };
    action.mutate(() => sika.patch('/api/v1/automations/{id}', { params: { path: { id: automation.id } }, body: definition as never }), {
      onSuccess: (saved) => setRestored(t('versions.restored', { version: v.version, current: (saved as AutomationObject).version })),
    });
  };
  return (
    <section aria-labelledby="versions">
      <h2 id="versions">{t('versions')}</h2>
      <ErrorMessage text={error} />
      {restored && <p role="status">{restored}</p>}
      <QueryView query={versions}>
        {(l) => (
          <Scrollable labelledBy="versions">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('version')}</th>
                  <th scope="col">{t('versions.saved')}</th>
                  <th scope="col">{t('name')}</th>
                  <th scope="col">{t('trigger')}</th>
                  <th scope="col">{t('steps')}</th>
                  <th scope="col">{t('versions.restore')}</th>
                </tr>
              </thead>
              <tbody>
                {l.data.map((v) => (
                  <tr key={v.version}>
                    <th scope="row">{v.version}</th>
                    <td>{formatWhen(language, v.created, 'second')}</td>
                    <td>{v.name}</td>
                    <td>{triggerText(v.trigger)}</td>
                    <td>{v.steps.map((s) => s.id).join(', ')}</td>
                    <td className="row-actions">
                      {v.current ? (
                        t('versions.current')
                      ) : (
                        <button type="button" className="secondary" disabled={action.isPending} aria-label={t('versions.restoreNamed', { version: v.version })} onClick={() => restore(v)}>
                          {t('versions.restore')}
                        </button>
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
  );
}
