import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import type { Environment } from '../../../../../clients/typescript/src/index.js';
import { ErrorMessage, errorText, isNotFound, Link, NavigationContext, NotFound, QueryView, retryUnlessNotFound, Scrollable, useAction } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { TemplatePreview, type PreviewRequest } from './TemplatePreview.js';
import { templateMessages as messages, type TemplateKind } from './templates.messages.js';

type Field = 'subject' | 'text' | 'html' | 'title';
type LocaleContent = Partial<Record<Field, string>>;

/** A template's content as the API holds a version of it (and a built-in template). */
interface Content {
  variables: Record<string, unknown>;
  locales: Record<string, LocaleContent>;
  defaultLocale: string;
  sampleData?: Record<string, unknown> | null;
}

/** The texts each kind has, in the order the editor shows them; an optional one left empty is not sent. */
const FIELDS: Record<TemplateKind, { field: Field; label: 'field.subject' | 'field.text' | 'field.html' | 'field.title' | 'field.smsText'; lines: number; optional?: boolean }[]> = {
  email: [
    { field: 'subject', label: 'field.subject', lines: 1 },
    { field: 'text', label: 'field.text', lines: 6 },
    { field: 'html', label: 'field.html', lines: 8, optional: true },
  ],
  sms: [{ field: 'text', label: 'field.smsText', lines: 4 }],
  receipt: [
    { field: 'title', label: 'field.title', lines: 1 },
    { field: 'text', label: 'field.text', lines: 8 },
  ],
  invoice: [
    { field: 'title', label: 'field.title', lines: 1 },
    { field: 'text', label: 'field.text', lines: 8 },
  ],
};

/** What the editor holds: the texts of every locale, and the variables and sample data as the JSON typed. */
interface Draft {
  name: string;
  locale: string;
  defaultLocale: string;
  locales: Record<string, LocaleContent>;
  variables: string;
  sampleData: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function draftOf(name: string, content: Content): Draft {
  return {
    name,
    locale: content.defaultLocale,
    defaultLocale: content.defaultLocale,
    locales: content.locales,
    variables: json(content.variables),
    sampleData: content.sampleData ? json(content.sampleData) : '',
  };
}

/** The same JSON whatever the order of keys: to tell whether the editor holds the saved content. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** One template: its name, kind and what it replaces; the editor with a live preview of what is typed; save (a version), the versions with publish; delete. */
export function Template({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const templateId = id ?? '';
  const key = ['templates', environment, 'one', templateId];
  const [notice, setNotice] = useState<string | null>(null);
  const template = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => sika.get('/api/template-engine/templates/{id}', { params: { path: { id: templateId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });

  if (template.isError && isNotFound(template.error)) return <NotFound title={t('template')} message={t('notFound')} back="templates" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="templates">{t('back')}</Link>
      </p>
      <QueryView query={template}>
        {(tpl) => (
          <>
            <h1 className="id-title">{tpl.name}</h1>
            {notice && <p role="status">{notice}</p>}
            <dl className="facts">
              <dt>{t('kind')}</dt>
              <dd>{t(`kind.${tpl.kind}`)}</dd>
              <dt>{t('purpose')}</dt>
              <dd>{tpl.purpose ?? t('noPurpose')}</dd>
              <dt>{t('latest')}</dt>
              <dd>{tpl.latestVersion}</dd>
              <dt>{t('published')}</dt>
              <dd>{tpl.publishedVersion ?? t('notPublished')}</dd>
            </dl>
            {tpl.purpose && <p className="muted">{t('purposeHelp')}</p>}
            {/* A new version starts the editor afresh from it. */}
            <Editor
              key={`${tpl.id}/${tpl.latestVersion}`}
              environment={environment}
              onSignedOut={onSignedOut}
              template={{ id: tpl.id, name: tpl.name, kind: tpl.kind, purpose: tpl.purpose ?? null, variables: tpl.variables, locales: tpl.locales, defaultLocale: tpl.defaultLocale, sampleData: tpl.sampleData ?? null }}
              onNotice={setNotice}
            />
            <Versions environment={environment} onSignedOut={onSignedOut} templateId={tpl.id} onNotice={setNotice} />
            <DeleteTemplate environment={environment} onSignedOut={onSignedOut} templateId={tpl.id} name={tpl.name} hasPurpose={tpl.purpose != null} />
          </>
        )}
      </QueryView>
    </main>
  );
}

/** JSON of the editor that does not parse: which field, and the browser's words for why. */
interface JsonProblem {
  field: 'variables' | 'sampleData';
  reason: string;
}

/** The content the editor holds, as the API takes it, or what is wrong with its JSON. */
function requestOf(draft: Draft, kind: TemplateKind): { request: PreviewRequest; problem: null } | { request: null; problem: JsonProblem } {
  const parse = (text: string, field: JsonProblem['field']): { value?: Record<string, never>; problem?: JsonProblem } => {
    try {
      return { value: JSON.parse(text) as Record<string, never> };
    } catch (err) {
      return { problem: { field, reason: err instanceof Error ? err.message : String(err) } };
    }
  };
  const variables = parse(draft.variables, 'variables');
  if (variables.problem) return { request: null, problem: variables.problem };
  const sampleData = draft.sampleData.trim() === '' ? {} : parse(draft.sampleData, 'sampleData');
  if (sampleData.problem) return { request: null, problem: sampleData.problem };
  const locales = Object.fromEntries(
    Object.entries(draft.locales).map(([locale, content]) => [locale, Object.fromEntries(FIELDS[kind].filter(({ field, optional }) => !(optional && !content[field])).map(({ field }) => [field, content[field] ?? '']))]),
  );
  return { request: { locale: draft.locale, content: { variables: variables.value!, locales, defaultLocale: draft.defaultLocale, sampleData: sampleData.value ?? null } }, problem: null };
}

interface EditedTemplate extends Content {
  id: string;
  name: string;
  kind: TemplateKind;
  purpose: string | null;
}

/** The editor: name, the texts of a locale, variables and sample data; the live preview beside it; save as a new version; a built-in template as a starting point. */
function Editor({ environment, onSignedOut, template, onNotice }: { environment: Environment; onSignedOut: () => void; template: EditedTemplate; onNotice: (text: string | null) => void }) {
  const t = useMessages(messages);
  const [draft, setDraft] = useState<Draft>(() => draftOf(template.name, template));
  const { action: save, error, setError } = useAction(onSignedOut, [['templates', environment]]);
  const { request, problem } = requestOf(draft, template.kind);
  const problemText = problem && t('notJson', { field: t(problem.field), reason: problem.reason });
  const setText = (field: Field, value: string) => setDraft({ ...draft, locales: { ...draft.locales, [draft.locale]: { ...draft.locales[draft.locale], [field]: value } } });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    onNotice(null);
    const name = draft.name.trim();
    const renamed = name !== template.name;
    if (!request) {
      setError(problemText);
      return;
    }
    const saved: Content = { variables: template.variables, locales: template.locales, defaultLocale: template.defaultLocale, sampleData: template.sampleData ?? null };
    const { content } = request;
    const changed = canonical(content) !== canonical(saved);
    if (!renamed && !changed) {
      onNotice(t('unchanged'));
      return;
    }
    // Said from the work itself: a new version starts this editor afresh before a callback of mutate could run.
    save.mutate(async () => {
      const updated = await sika.patch('/api/template-engine/templates/{id}', { params: { path: { id: template.id } }, body: { ...(renamed ? { name } : {}), ...(changed ? content : {}) } });
      onNotice(changed ? t('saved', { version: updated.latestVersion }) : t('renamed'));
    });
  };
  return (
    <div className="template-workspace">
      <form aria-labelledby="template-editor" className="panel" onSubmit={submit}>
        <h2 id="template-editor">{t('editor')}</h2>
        <p className="muted">{t('editorHelp')}</p>
        <BuiltInStart environment={environment} onSignedOut={onSignedOut} kind={template.kind} purpose={template.purpose} onUse={(content) => setDraft(draftOf(draft.name, content))} />
        <label>
          {t('name')}
          <input value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} required maxLength={200} />
        </label>
        {Object.keys(draft.locales).length > 1 && (
          <label>
            {t('language')}
            <select value={draft.locale} onChange={(e) => setDraft({ ...draft, locale: e.target.value })}>
              {Object.keys(draft.locales).map((locale) => (
                <option key={locale} value={locale}>
                  {locale}
                </option>
              ))}
            </select>
          </label>
        )}
        {FIELDS[template.kind].map(({ field, label, lines }) => (
          <label key={field}>
            {t(label)}
            {lines === 1 ? (
              <input value={draft.locales[draft.locale]?.[field] ?? ''} onChange={(e) => setText(field, e.target.value)} spellCheck={false} />
            ) : (
              <textarea rows={lines} value={draft.locales[draft.locale]?.[field] ?? ''} onChange={(e) => setText(field, e.target.value)} spellCheck={false} />
            )}
          </label>
        ))}
        <label>
          {t('variables')}
          <textarea rows={6} value={draft.variables} onChange={(e) => setDraft({ ...draft, variables: e.target.value })} spellCheck={false} aria-describedby="variables-help" />
        </label>
        <p id="variables-help" className="muted">
          {t('variablesHelp')}
        </p>
        <label>
          {t('sampleData')}
          <textarea rows={4} value={draft.sampleData} onChange={(e) => setDraft({ ...draft, sampleData: e.target.value })} spellCheck={false} aria-describedby="sample-help" />
        </label>
        <p id="sample-help" className="muted">
          {t('sampleDataHelp')}
        </p>
        <ErrorMessage text={error} />
        <button type="submit" disabled={save.isPending}>
          {t('save')}
        </button>
      </form>
      <TemplatePreview environment={environment} onSignedOut={onSignedOut} templateId={template.id} name={draft.name} kind={template.kind} request={request} problem={problemText} />
    </div>
  );
}

/** The service's own templates of this kind that a merchant may restyle, one to fill the editor with (its purpose's first). */
function BuiltInStart({ environment, onSignedOut, kind, purpose, onUse }: { environment: Environment; onSignedOut: () => void; kind: TemplateKind; purpose: string | null; onUse: (content: Content) => void }) {
  const t = useMessages(messages);
  const [chosen, setChosen] = useState<string | null>(null);
  const [used, setUsed] = useState(false);
  const defaults = useQuery({
    queryKey: ['templates', environment, 'defaults'],
    queryFn: () => withSession(() => sika.get('/api/template-engine/defaults'), onSignedOut),
    staleTime: Infinity,
  });
  const builtIns = (defaults.data?.data ?? []).filter((b) => b.kind === kind && b.overridable);
  if (builtIns.length === 0) return null;
  const selected = builtIns.find((b) => b.purpose === chosen) ?? builtIns.find((b) => b.purpose === purpose) ?? builtIns[0]!;
  return (
    <div role="group" aria-labelledby="built-in" className="inline-form">
      <label className="wide">
        <span id="built-in">{t('builtIn')}</span>
        <select value={selected.purpose} onChange={(e) => setChosen(e.target.value)} aria-describedby="built-in-help">
          {builtIns.map((b) => (
            <option key={b.purpose} value={b.purpose}>
              {`${b.purpose}: ${b.description}`}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="secondary"
        onClick={() => {
          onUse(selected);
          setUsed(true);
        }}
      >
        {t('builtInUse')}
      </button>
      <p id="built-in-help" className="muted">
        {used ? t('builtInUsed') : t('builtInHelp')}
      </p>
    </div>
  );
}

/** The versions, newest first, the published one said; publish any other (an older one rolls back). */
function Versions({ environment, onSignedOut, templateId, onNotice }: { environment: Environment; onSignedOut: () => void; templateId: string; onNotice: (text: string | null) => void }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const { action: publish, error } = useAction(onSignedOut, [['templates', environment]]);
  const versions = useQuery({
    queryKey: ['templates', environment, 'one', templateId, 'versions'],
    queryFn: () => withSession(() => sika.get('/api/template-engine/templates/{id}/versions', { params: { path: { id: templateId } } }), onSignedOut),
  });
  return (
    <section aria-labelledby="template-versions">
      <h2 id="template-versions">{t('versions')}</h2>
      <ErrorMessage text={error} />
      <QueryView query={versions}>
        {(list) => (
          <Scrollable labelledBy="template-versions">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('version')}</th>
                  <th scope="col">{t('versionCreated')}</th>
                  <th scope="col">{t('versionStatus')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((v) => (
                  <tr key={v.version}>
                    <th scope="row">{v.version}</th>
                    <td>{formatWhen(language, v.created)}</td>
                    <td>{t(v.published ? 'versionPublished' : 'versionDraft')}</td>
                    <td className="row-actions">
                      {!v.published && (
                        <button
                          type="button"
                          className="secondary"
                          disabled={publish.isPending}
                          aria-label={t('publishNamed', { version: v.version })}
                          onClick={() => {
                            onNotice(null);
                            publish.mutate(() => sika.post('/api/template-engine/templates/{id}/versions/{version}/publish', { params: { path: { id: templateId, version: String(v.version) } } }), {
                              onSuccess: () => onNotice(t('publishedNotice', { version: v.version })),
                            });
                          }}
                        >
                          {t('publish')}
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

/** Delete, once confirmed; then the list. The service's messages it restyled go back to the built-in template. */
function DeleteTemplate({ environment, onSignedOut, templateId, name, hasPurpose }: { environment: Environment; onSignedOut: () => void; templateId: string; name: string; hasPurpose: boolean }) {
  const t = useMessages(messages);
  const queries = useQueryClient();
  const go = useContext(NavigationContext);
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => withSession(() => sika.delete('/api/template-engine/templates/{id}', { params: { path: { id: templateId } } }), onSignedOut),
    onSuccess: () => {
      // Gone: its own queries are dropped (not asked again for a 404), the list is asked again when shown.
      queries.removeQueries({ queryKey: ['templates', environment, 'one', templateId] });
      void queries.invalidateQueries({ queryKey: ['templates', environment], refetchType: 'none' });
      go('templates');
    },
  });
  return (
    <section aria-labelledby="template-delete">
      <h2 id="template-delete">{t('delete')}</h2>
      <ErrorMessage text={remove.isError ? errorText(remove.error, t('error.generic')) : null} />
      {confirming ? (
        <div role="group" aria-label={t('delete')}>
          <p>
            {t('deleteConfirm', { name })} {hasPurpose && t('deleteFallback')}
          </p>
          <div className="actions">
            <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
              {t('deleteYes')}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              {t('keep')}
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          {t('delete')}
        </button>
      )}
    </section>
  );
}
