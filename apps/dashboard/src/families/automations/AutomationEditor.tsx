import { useMutation, useQuery } from '@tanstack/react-query';
import { useContext, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { SikaError, type Environment } from '../../../../../clients/typescript/src/index.js';
import { errorText } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { automationMessages as messages, PARAM_LABELS } from './automations.messages.js';
import { ACTIONS, useCatalogs, type Action, type ActionEntry, type Definition, type ParamSchema, type RuntimeCapabilities, type Step } from './automations.shared.js';

/**
 * The form of an automation's definition (docs/automations.md, "Definitions"): its name, its
 * trigger (an event of the catalog, or a cron schedule) and its steps, each an action of the
 * catalog with a field per parameter of the action's JSON Schema. What is typed goes to the API as
 * typed (a number where the schema asks for one, JSON where it asks for an object), so every
 * problem is the API's, said at the field it names (`param`): the API reports every problem of a
 * definition at once (SikaError.errors), and each is shown at its own field.
 */

interface StepDraft {
  /** React's key: a step keeps its fields while others move. */
  key: string;
  id: string;
  action: Action;
  /** Each parameter as typed: text, a number, or JSON. */
  fields: Record<string, string>;
  maxAttempts: string;
}

interface Draft {
  name: string;
  description: string;
  triggerType: 'event' | 'schedule';
  eventType: string;
  cron: string;
  timezone: string;
  steps: StepDraft[];
}

/** How a parameter is typed in the form, from its schema. */
type FieldKind = 'text' | 'number' | 'amount' | 'choice' | 'json' | 'template';

function kindOf(name: string, schema: ParamSchema | undefined): FieldKind {
  if (name === 'templateId') return 'template';
  if (!schema) return 'json';
  if (schema.enum) return 'choice';
  if (schema.type === 'integer') return 'number';
  if (schema.oneOf) return 'amount';
  if (schema.type === 'string') return 'text';
  return 'json';
}

/** A field's text as the API takes it; undefined (left out) when empty. Whatever does not parse goes as text, for the API to say what is wrong. */
function paramValue(kind: FieldKind, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if ((kind === 'number' || kind === 'amount') && /^-?\d+$/.test(trimmed)) return Number(trimmed);
  if (kind === 'json') {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return text;
    }
  }
  return kind === 'text' || kind === 'template' ? text : trimmed;
}

function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value, null, 2);
}

let nextKey = 0;
const newKey = () => `step-${nextKey++}`;

function draftOf(definition: Definition | null): Draft {
  const trigger = definition?.trigger;
  return {
    name: definition?.name ?? '',
    description: definition?.description ?? '',
    triggerType: trigger?.type ?? 'event',
    eventType: trigger?.type === 'event' ? trigger.eventType : '',
    cron: trigger?.type === 'schedule' ? trigger.cron : '',
    timezone: trigger?.type === 'schedule' ? (trigger.timezone ?? '') : '',
    steps: (definition?.steps ?? []).map((s) => ({
      key: newKey(),
      id: s.id,
      action: s.action,
      fields: Object.fromEntries(Object.entries(s.params).map(([name, value]) => [name, fieldText(value)])),
      maxAttempts: s.retry ? String(s.retry.maxAttempts) : '',
    })),
  };
}

function definitionOf(draft: Draft, eventType: string, actions: ActionEntry[]): Definition {
  const description = draft.description.trim();
  return {
    name: draft.name.trim(),
    description: description === '' ? null : description,
    trigger: draft.triggerType === 'event' ? { type: 'event', eventType } : { type: 'schedule', cron: draft.cron.trim(), ...(draft.timezone.trim() ? { timezone: draft.timezone.trim() } : {}) },
    steps: draft.steps.map((s): Step => {
      const schema = actions.find((a) => a.action === s.action)?.params.properties ?? {};
      const params = Object.fromEntries(
        Object.entries(s.fields)
          .map(([name, text]) => [name, paramValue(kindOf(name, schema[name]), text)] as const)
          .filter(([, value]) => value !== undefined),
      );
      return { id: s.id.trim(), action: s.action, params, ...(s.maxAttempts ? { retry: { maxAttempts: Number(s.maxAttempts) } } : {}) };
    }),
  };
}

/** A step id not used yet, from the action's name. */
function freshId(action: Action, steps: StepDraft[]): string {
  const taken = new Set(steps.map((s) => s.id));
  if (!taken.has(action)) return action;
  let n = 2;
  while (taken.has(`${action}_${n}`)) n++;
  return `${action}_${n}`;
}

/** The fields of the form that a problem's `param` can name, most precise last. */
function pathsOf(draft: Draft, actions: ActionEntry[]): string[] {
  const trigger = draft.triggerType === 'event' ? ['trigger.eventType'] : ['trigger.cron', 'trigger.timezone'];
  return [
    'name',
    'description',
    'trigger',
    ...trigger,
    'steps',
    ...draft.steps.flatMap((s, i) => [`steps.${i}`, `steps.${i}.id`, `steps.${i}.retry`, ...Object.keys(actions.find((a) => a.action === s.action)?.params.properties ?? s.fields).map((name) => `steps.${i}.params.${name}`)]),
  ];
}

/** The field a problem belongs to: the longest path that is `param` or contains it; null: the form as a whole. */
function fieldOf(param: string | undefined, paths: string[]): string | null {
  if (!param) return null;
  return paths.filter((p) => param === p || param.startsWith(`${p}.`)).sort((a, b) => b.length - a.length)[0] ?? null;
}

export interface EditorProps {
  environment: Environment;
  onSignedOut: () => void;
  /** The form's accessible name and heading. */
  label: string;
  /** The definition it starts from (null: a new automation). */
  initial: Definition | null;
  submitLabel: string;
  /** Offer "enable it now" (a new automation). */
  withEnabled?: boolean;
  /** Saves the definition; a refusal (a SikaError) is shown at its field. */
  onSubmit: (definition: Definition & { enabled?: boolean }) => Promise<unknown>;
  onCancel?: () => void;
}

export function AutomationEditor({ environment, onSignedOut, label, initial, submitLabel, withEnabled, onSubmit, onCancel }: EditorProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const formId = useId().replace(/\W/g, '');
  const idOf = (path: string) => `${formId}-${path.replace(/\W/g, '-')}`;
  const catalogs = useCatalogs(environment, onSignedOut);
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const [enabled, setEnabled] = useState(false);
  const [newAction, setNewAction] = useState<Action>('send_email');
  const [problems, setProblems] = useState<{ message: string; field: string | null }[]>([]);
  const [checked, setChecked] = useState<{ nextRuns: string[] } | null>(null);
  // A second press before the first answer is not sent.
  const sending = useRef(false);

  const actions = catalogs.actions.data?.data ?? [];
  const eventTypes = (catalogs.triggers.data?.data ?? []).filter((e) => e.type === 'event');
  const eventType = draft.eventType || eventTypes[0]?.eventType || '';
  const limits = catalogs.capabilities.data?.limits;
  const paths = pathsOf(draft, actions);

  const refused = (err: unknown) =>
    setProblems(
      err instanceof SikaError && err.errors.length > 0
        ? err.errors.map((e) => ({ message: e.message, field: fieldOf(e.param, paths) }))
        : [{ message: errorText(err, t('error.generic')), field: fieldOf(err instanceof SikaError ? err.param : undefined, paths) }],
    );
  const validate = useMutation({
    mutationFn: (definition: Definition) => withSession(() => sika.post('/api/v1/automations/validate', { body: definition as never }), onSignedOut),
    onSuccess: (answer) => setChecked({ nextRuns: answer.nextRuns ?? [] }),
    onError: refused,
  });
  const save = useMutation({
    mutationFn: (definition: Definition & { enabled?: boolean }) => withSession(() => onSubmit(definition), onSignedOut),
    onError: refused,
  });
  // The first problem moves the focus to the field it names (or to its message, for a group of fields or the whole form).
  useEffect(() => {
    const first = problems[0];
    if (!first) return;
    (document.getElementById(first.field ? idOf(first.field) : problemId(null)) ?? document.getElementById(problemId(first.field)))?.focus();
  }, [problems]);

  const change = (next: Partial<Draft>) => {
    setDraft({ ...draft, ...next });
    setChecked(null);
  };
  const changeStep = (index: number, next: Partial<StepDraft>) => change({ steps: draft.steps.map((s, i) => (i === index ? { ...s, ...next } : s)) });
  const moveStep = (index: number, by: -1 | 1) => {
    const steps = [...draft.steps];
    [steps[index], steps[index + by]] = [steps[index + by]!, steps[index]!];
    change({ steps });
  };
  const definition = () => definitionOf(draft, eventType, actions);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (sending.current) return;
    sending.current = true;
    setProblems([]);
    setChecked(null);
    save.mutate(withEnabled ? { ...definition(), enabled } : definition(), {
      onSuccess: () => {
        setDraft(draftOf(initial));
        setEnabled(false);
      },
      onSettled: () => (sending.current = false),
    });
  };

  /** The id of the message of the problems at `path` (null: the form as a whole). */
  const problemId = (path: string | null) => (path === null ? `${formId}-problem` : `${idOf(path)}-problem`);
  const problemsAt = (path: string | null) => problems.filter((p) => p.field === path);
  /** The messages of the problems where they belong: under the field `path` names. */
  const problemAt = (path: string | null) => {
    const here = problemsAt(path);
    return here.length > 0 ? (
      <p className="error" role="alert" id={problemId(path)} tabIndex={-1}>
        {here.map((p, i) => (
          <span key={i}>
            {i > 0 && <br />}
            {p.message}
          </span>
        ))}
      </p>
    ) : null;
  };
  const invalid = (path: string, ...hints: string[]) => {
    const wrong = problemsAt(path).length > 0;
    const described = [...hints, ...(wrong ? [problemId(path)] : [])];
    return { id: idOf(path), 'aria-invalid': wrong ? true : undefined, 'aria-describedby': described.length ? described.join(' ') : undefined };
  };

  const chosenTrigger = eventTypes.find((e) => e.eventType === eventType);
  return (
    <form aria-label={label} onSubmit={submit} className="automation-editor" noValidate>
      {problems.length > 1 && (
        <p className="error" id={`${formId}-problems`}>
          {t('problems', { n: problems.length })}
        </p>
      )}
      {problemAt(null)}
      <label>
        {t('name')}
        <input value={draft.name} onChange={(e) => change({ name: e.target.value })} maxLength={200} aria-required="true" {...invalid('name')} />
      </label>
      {problemAt('name')}
      <label>
        {t('descriptionOptional')}
        <textarea value={draft.description} onChange={(e) => change({ description: e.target.value })} rows={2} {...invalid('description')} />
      </label>
      {problemAt('description')}

      <fieldset className="group">
        <legend>{t('trigger')}</legend>
        {problemAt('trigger')}
        <div className="choices">
          {(['event', 'schedule'] as const).map((type) => (
            <label key={type} className="check">
              <input type="radio" name={`${formId}-trigger`} checked={draft.triggerType === type} onChange={() => change({ triggerType: type })} /> {t(`trigger.${type}`)}
            </label>
          ))}
        </div>
        {draft.triggerType === 'event' ? (
          <>
            <label>
              {t('trigger.eventType')}
              <select value={eventType} onChange={(e) => change({ eventType: e.target.value })} {...invalid('trigger.eventType', `${formId}-emitted`)}>
                {eventTypes.map((e) => (
                  <option key={e.eventType} value={e.eventType}>
                    {e.eventType}
                  </option>
                ))}
              </select>
            </label>
            <p className="muted" id={`${formId}-emitted`}>
              {chosenTrigger ? t('trigger.emittedBy', { by: chosenTrigger.description }) : ''}
            </p>
            {problemAt('trigger.eventType')}
          </>
        ) : (
          <>
            <label>
              {t('trigger.cron')}
              <input value={draft.cron} onChange={(e) => change({ cron: e.target.value })} aria-required="true" {...invalid('trigger.cron', `${formId}-cron-help`)} />
            </label>
            <p className="muted" id={`${formId}-cron-help`}>
              {t('trigger.cronHelp')}
            </p>
            {problemAt('trigger.cron')}
            <label>
              {t('trigger.timezone')}
              <input value={draft.timezone} onChange={(e) => change({ timezone: e.target.value })} placeholder="Africa/Dakar" {...invalid('trigger.timezone')} />
            </label>
            {problemAt('trigger.timezone')}
          </>
        )}
      </fieldset>

      <fieldset className="group">
        <legend>{t('steps')}</legend>
        <p className="muted">{t('steps.help')}</p>
        {problemAt('steps')}
        {draft.steps.length === 0 && <p>{t('steps.none')}</p>}
        {draft.steps.map((step, index) => {
          const entry = actions.find((a) => a.action === step.action);
          const names = Object.keys(entry?.params.properties ?? step.fields);
          const required = new Set(entry?.params.required ?? []);
          const path = `steps.${index}`;
          return (
            <fieldset key={step.key} className="step">
              <legend>{t('step.legend', { n: index + 1, action: t(`action.${step.action}`) })}</legend>
              {problemAt(path)}
              <p className="muted">{t(`action.${step.action}.help`)}</p>
              <label>
                {t('step.id')}
                <input value={step.id} onChange={(e) => changeStep(index, { id: e.target.value })} aria-required="true" {...invalid(`${path}.id`, `${formId}-${step.key}-id-help`)} />
              </label>
              <p className="muted" id={`${formId}-${step.key}-id-help`}>
                {t('step.idHelp', { id: step.id || 'id' })}
              </p>
              {problemAt(`${path}.id`)}
              {names.map((name) => (
                <ParamField
                  key={name}
                  environment={environment}
                  onSignedOut={onSignedOut}
                  action={step.action}
                  name={name}
                  schema={entry?.params.properties[name]}
                  required={required.has(name)}
                  value={step.fields[name] ?? ''}
                  onChange={(text) => changeStep(index, { fields: { ...step.fields, [name]: text } })}
                  control={invalid(`${path}.params.${name}`)}
                  problem={problemAt(`${path}.params.${name}`)}
                />
              ))}
              <label>
                {t('step.attempts')}
                <select value={step.maxAttempts} onChange={(e) => changeStep(index, { maxAttempts: e.target.value })} {...invalid(`${path}.retry`)}>
                  <option value="">{t('step.attemptsDefault', { n: limits?.defaultAttempts ?? 3 })}</option>
                  {Array.from({ length: limits?.maxAttempts ?? 5 }, (_, i) => i + 1).map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              </label>
              {problemAt(`${path}.retry`)}
              <div className="actions">
                <button type="button" className="secondary" disabled={index === 0} onClick={() => moveStep(index, -1)} aria-label={t('step.upNamed', { id: step.id || String(index + 1) })}>
                  {t('step.up')}
                </button>
                <button type="button" className="secondary" disabled={index === draft.steps.length - 1} onClick={() => moveStep(index, 1)} aria-label={t('step.downNamed', { id: step.id || String(index + 1) })}>
                  {t('step.down')}
                </button>
                <button type="button" className="secondary" onClick={() => change({ steps: draft.steps.filter((_, i) => i !== index) })} aria-label={t('step.removeNamed', { id: step.id || String(index + 1) })}>
                  {t('step.remove')}
                </button>
              </div>
            </fieldset>
          );
        })}
        <div className="inline-form">
          <label>
            {t('step.action')}
            <select value={newAction} onChange={(e) => setNewAction(e.target.value as Action)}>
              {ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {t(`action.${a}`)}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="secondary"
            disabled={limits !== undefined && draft.steps.length >= limits.maxSteps}
            onClick={() => change({ steps: [...draft.steps, { key: newKey(), id: freshId(newAction, draft.steps), action: newAction, fields: {}, maxAttempts: '' }] })}
          >
            {t('step.add')}
          </button>
        </div>
      </fieldset>

      {catalogs.capabilities.data && <Capabilities capabilities={catalogs.capabilities.data} />}
      {withEnabled && (
        <label className="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> {t('enableNow')}
        </label>
      )}
      {checked && (
        <div role="status" className="panel">
          <p>{t('valid')}</p>
          {checked.nextRuns.length > 0 && (
            <>
              <p>{t('nextRuns')}</p>
              <ul>
                {checked.nextRuns.map((at) => (
                  <li key={at}>{formatWhen(language, at, 'minute')}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={validate.isPending}
          onClick={() => {
            setProblems([]);
            setChecked(null);
            validate.mutate(definition());
          }}
        >
          {t('check')}
        </button>
        <button type="submit" disabled={save.isPending}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            {t('action.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}

/** One parameter of a step: a template of the step's kind, a choice, a number, text or JSON. */
function ParamField({
  environment,
  onSignedOut,
  action,
  name,
  schema,
  required,
  value,
  onChange,
  control,
  problem,
}: {
  environment: Environment;
  onSignedOut: () => void;
  action: Action;
  name: string;
  schema: ParamSchema | undefined;
  required: boolean;
  value: string;
  onChange: (text: string) => void;
  control: { id: string; 'aria-invalid': boolean | undefined; 'aria-describedby': string | undefined };
  problem: ReactNode;
}) {
  const t = useMessages(messages);
  const kind = kindOf(name, schema);
  const known = (PARAM_LABELS as readonly string[]).includes(name);
  const text = `${known ? t(`param.${name as (typeof PARAM_LABELS)[number]}`) : name}${kind === 'json' ? ' (JSON)' : ''}${required ? '' : ` ${t('optional')}`}`;
  const templateKind = action === 'send_sms' ? 'sms' : 'email';
  const templates = useQuery({
    queryKey: ['templates', environment, 'choices', templateKind],
    queryFn: () => withSession(() => sika.get('/api/template-engine/templates', { params: { query: { kind: templateKind, limit: 100 } } }), onSignedOut),
    enabled: kind === 'template',
  });
  const common = { ...control, 'aria-required': required ? ('true' as const) : undefined };
  let input: ReactNode;
  if (kind === 'template') {
    const list = templates.data?.data ?? [];
    input = (
      <select value={value} onChange={(e) => onChange(e.target.value)} {...common}>
        <option value="">{list.length === 0 ? t('param.noTemplate') : t('param.chooseTemplate')}</option>
        {value && !list.some((tpl) => tpl.id === value) && <option value={value}>{value}</option>}
        {list.map((tpl) => (
          <option key={tpl.id} value={tpl.id}>
            {tpl.publishedVersion == null ? t('param.templateUnpublished', { name: tpl.name }) : tpl.name}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'choice') {
    input = (
      <select value={value} onChange={(e) => onChange(e.target.value)} {...common}>
        <option value="">{t('param.default')}</option>
        {(schema?.enum ?? []).map((v) => (
          <option key={String(v)} value={String(v)}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'json') {
    input = <textarea value={value} onChange={(e) => onChange(e.target.value)} rows={3} spellCheck={false} {...common} />;
  } else {
    input = <input value={value} onChange={(e) => onChange(e.target.value)} inputMode={kind === 'number' ? 'numeric' : undefined} spellCheck={false} {...common} />;
  }
  return (
    <>
      <label>
        {text}
        {input}
      </label>
      {problem}
    </>
  );
}

/** What the deployment does with an automation's messages and calls in this environment, and its limits. */
function Capabilities({ capabilities }: { capabilities: RuntimeCapabilities }) {
  const t = useMessages(messages);
  const { limits, email, http } = capabilities;
  return (
    <details className="capabilities">
      <summary>{t('caps.title')}</summary>
      <ul>
        <li>{t(email.delivery === 'smtp' ? 'caps.emailSmtp' : 'caps.emailOutbox')}</li>
        <li>{t('caps.sms')}</li>
        <li>{t(http.httpAllowed ? 'caps.httpAllowed' : 'caps.httpsOnly')}</li>
        {http.privateAddressesAllowed && <li>{t('caps.private')}</li>}
        <li>{t('caps.limits', { steps: limits.maxSteps, days: Math.round(limits.maxWaitSeconds / 86_400), runs: limits.runsPerMinute, failures: limits.failuresBeforeDisable })}</li>
      </ul>
    </details>
  );
}
