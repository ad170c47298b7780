import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext } from 'react';
import type { Answer, Environment } from '../../../../../clients/typescript/src/index.js';
import { ErrorMessage, QueryView, useAction } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { automationMessages as messages } from './automations.messages.js';

/** What the automation pages (Automations.tsx, Automation.tsx, AutomationEditor.tsx) share: the API's objects, the catalogs, a run with its log. */

export const ACTIONS = ['send_email', 'send_sms', 'http_request', 'create_invoice', 'create_payout', 'tag_customer', 'wait'] as const;
export type Action = (typeof ACTIONS)[number];
export const RUN_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'skipped', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const LOG_STATUSES = ['succeeded', 'failed', 'waiting', 'skipped'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

export type Trigger = { type: 'event'; eventType: string } | { type: 'schedule'; cron: string; timezone?: string };

export interface Step {
  id: string;
  action: Action;
  params: Record<string, unknown>;
  retry?: { maxAttempts: number };
}

/** What a version of an automation is (docs/automations.md, "Definitions"). */
export interface Definition {
  name: string;
  description: string | null;
  trigger: Trigger;
  steps: Step[];
}

export interface Automation extends Definition {
  id: string;
  status: 'enabled' | 'disabled';
  disabledReason: 'merchant' | 'failures' | null;
  version: number;
  secretLast4: string;
  /** Only in the answer to create: signs the automation's HTTP calls, shown this once. */
  secret?: string;
  created: number;
  updated: number;
  /** Its newest run, null before the first. */
  lastRun: Pick<Run, 'id' | 'status' | 'test' | 'startedAt' | 'finishedAt'> | null;
}

export interface AutomationVersion extends Definition {
  version: number;
  current: boolean;
  created: number;
}

export type Run = Answer<'get', '/api/v1/automations/{id}/runs'>['data'][number];

/** A parameter's JSON Schema as the actions catalog gives it. */
export interface ParamSchema {
  type?: string | string[];
  enum?: unknown[];
  oneOf?: unknown[];
  minimum?: number;
  maximum?: number;
  description?: string;
}

export interface ActionEntry {
  action: Action;
  description: string;
  params: { properties: Record<string, ParamSchema>; required?: string[] };
}

export type RuntimeCapabilities = Answer<'get', '/api/v1/automations/catalog/runtime-capabilities'>;

/** The queries of one environment's automations, runs and logs: every change asks them again. */
export const automationsKey = (environment: Environment) => ['automations', environment];

/**
 * What can start an automation, what a step can do (with its parameters' JSON Schema), and what
 * this deployment allows in the environment: they change only with a new version of the service.
 */
export function useCatalogs(environment: Environment, onSignedOut: () => void) {
  const key = ['automation-catalogs', environment];
  const triggers = useQuery({
    queryKey: [...key, 'triggers'],
    queryFn: () => withSession(() => sika.get('/api/v1/automations/catalog/triggers'), onSignedOut),
    staleTime: Infinity,
  });
  const actions = useQuery({
    queryKey: [...key, 'actions'],
    queryFn: () => withSession(() => sika.get('/api/v1/automations/catalog/actions'), onSignedOut) as Promise<unknown> as Promise<{ data: ActionEntry[] }>,
    staleTime: Infinity,
  });
  const capabilities = useQuery({
    queryKey: [...key, 'capabilities'],
    queryFn: () => withSession(() => sika.get('/api/v1/automations/catalog/runtime-capabilities'), onSignedOut),
    staleTime: Infinity,
  });
  return { triggers, actions, capabilities };
}

/** A trigger in a few words: its event type, or its schedule. */
export function useTriggerText() {
  const t = useMessages(messages);
  return (trigger: Trigger) => (trigger.type === 'event' ? trigger.eventType : t('trigger.scheduleText', { cron: trigger.cron, timezone: trigger.timezone ?? 'UTC' }));
}

/** What started a run: an event (its type), a tick of the schedule, or a test. */
export function useRunTriggerText() {
  const t = useMessages(messages);
  return (run: Run) => {
    const kind = t(`kind.${run.trigger.kind}`);
    return run.trigger.eventType ? `${kind}: ${run.trigger.eventType}` : kind;
  };
}

/** A value of a step log (its rendered input, its output) as JSON. */
function Json({ value }: { value: unknown }) {
  return value === null || value === undefined ? <>—</> : <pre>{JSON.stringify(value, null, 2)}</pre>;
}

/**
 * One run: what started it, its status, and each step with the log of each attempt (input,
 * output, duration, error); a run still going is read again every second until it ends or waits,
 * and can be canceled.
 */
export function RunDetail({ environment, onSignedOut, automationId, runId, title, onClose }: { environment: Environment; onSignedOut: () => void; automationId: string; runId: string; title: string; onClose?: () => void }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const runText = useRunTriggerText();
  const run = useQuery({
    queryKey: [...automationsKey(environment), automationId, 'run', runId],
    queryFn: () => withSession(() => sika.get('/api/v1/automations/{id}/runs/{runId}', { params: { path: { id: automationId, runId } } }), onSignedOut),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 1000 : false),
  });
  const { action: cancel, error } = useAction(onSignedOut, [automationsKey(environment)]);
  const headingId = `run-${runId}`;
  return (
    <section aria-labelledby={headingId} className="panel">
      <h3 id={headingId}>{title}</h3>
      <QueryView query={run}>
        {(r) => (
          <>
            <ErrorMessage text={error} />
            <dl className="facts">
              <dt>{t('run.id')}</dt>
              <dd>
                <code>{r.id}</code>
              </dd>
              <dt>{t('status')}</dt>
              <dd>
                <Badge status={r.status}>{t(`run.${r.status}`)}</Badge>
              </dd>
              <dt>{t('run.trigger')}</dt>
              <dd>{runText(r)}</dd>
              {r.trigger.eventId && (
                <>
                  <dt>{t('run.event')}</dt>
                  <dd>
                    <code>{r.trigger.eventId}</code>
                  </dd>
                </>
              )}
              <dt>{t('version')}</dt>
              <dd>{r.automationVersion}</dd>
              <dt>{t('run.started')}</dt>
              <dd>{formatWhen(language, r.startedAt, 'second')}</dd>
              <dt>{t('run.finished')}</dt>
              <dd>{formatWhen(language, r.finishedAt, 'second')}</dd>
              {r.error && (
                <>
                  <dt>{t('run.error')}</dt>
                  <dd>{r.error}</dd>
                </>
              )}
            </dl>
            <h4>{t('run.log')}</h4>
            <ol className="run-steps">
              {r.steps.map((step) => {
                const attempts = r.logs.filter((l) => l.step === step.id);
                return (
                  <li key={step.id}>
                    <p className="step-name">
                      <code>{step.id}</code> — {t(`action.${step.action}`)}
                    </p>
                    {attempts.length === 0 ? (
                      <p className="muted">{r.currentStep === step.id && r.status === 'running' ? t('log.due') : t('log.notRun')}</p>
                    ) : (
                      <ol className="attempts" aria-label={t('log.attemptsOf', { step: step.id })}>
                        {attempts.map((a) => (
                          <li key={a.id}>
                            <dl className="facts">
                              <dt>{t('log.attempt')}</dt>
                              <dd>{a.attempt}</dd>
                              <dt>{t('status')}</dt>
                              <dd>
                                <Badge status={a.status}>{t(`log.${a.status}`)}</Badge>
                              </dd>
                              <dt>{t('run.started')}</dt>
                              <dd>{formatWhen(language, a.startedAt, 'second')}</dd>
                              <dt>{t('log.duration')}</dt>
                              <dd>{t('log.durationMs', { ms: a.durationMs })}</dd>
                              <dt>{t('log.input')}</dt>
                              <dd>
                                <Json value={a.input} />
                              </dd>
                              <dt>{t('log.output')}</dt>
                              <dd>
                                <Json value={a.output} />
                              </dd>
                              {a.error && (
                                <>
                                  <dt>{t('run.error')}</dt>
                                  <dd>{a.error}</dd>
                                </>
                              )}
                            </dl>
                          </li>
                        ))}
                      </ol>
                    )}
                  </li>
                );
              })}
            </ol>
            <div className="actions">
              {(r.status === 'running' || r.status === 'waiting') && (
                <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate(() => sika.post('/api/v1/automations/{id}/runs/{runId}/cancel', { params: { path: { id: automationId, runId } } }))}>
                  {t('run.cancel')}
                </button>
              )}
              {onClose && (
                <button type="button" className="secondary" onClick={onClose}>
                  {t('close')}
                </button>
              )}
            </div>
          </>
        )}
      </QueryView>
    </section>
  );
}
