import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, Link, QueryView, Scrollable, FilterSelect } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { TEMPLATE_KINDS as KINDS, templateMessages as messages, type TemplateKind as Kind } from './templates.messages.js';

/** What a new template of each kind starts with (version 1, English): the fields its kind needs. */
const STARTER: Record<Kind, Record<string, string>> = {
  email: { subject: 'Hello', text: 'Hello' },
  sms: { text: 'Hello' },
  receipt: { title: 'Receipt', text: 'Thank you' },
  invoice: { title: 'Invoice', text: 'Invoice' },
};

/** A schema of no variables (the generated type of a free-form object admits no key). */
const EMPTY_SCHEMA = { type: 'object', properties: {} } as unknown as Record<string, never>;

/** Templates: the list by kind, each linking to its page, and a new template (version 1, a starting text of its kind). */
export function Templates({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const queries = useQueryClient();
  const [kind, setKind] = useState<Kind | ''>('');
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ id: string; name: string } | null>(null);
  const key = ['templates', environment];
  const list = useQuery({
    queryKey: [...key, kind],
    queryFn: () => withSession(() => sika.get('/api/template-engine/templates', { params: { query: kind ? { kind } : {} } }), onSignedOut),
  });
  const create = useMutation({
    mutationFn: (input: { name: string; kind: Kind }) => sika.post('/api/template-engine/templates', { body: { kind: input.kind, name: input.name, variables: EMPTY_SCHEMA, locales: { en: STARTER[input.kind] } } }),
    onSuccess: (tpl) => {
      setCreated({ id: tpl.id, name: tpl.name });
      void queries.invalidateQueries({ queryKey: key });
    },
    onError: (err: unknown) => setError(errorText(err, t('error.generic'))),
  });
  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <p>{t('intro')}</p>
      <form
        aria-label={t('new')}
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          setError(null);
          setCreated(null);
          const form = new FormData(e.currentTarget);
          create.mutate({ name: String(form.get('name')).trim(), kind: String(form.get('kind')) as Kind });
        }}
      >
        <h2>{t('new')}</h2>
        <ErrorMessage text={error} />
        <label>
          {t('name')}
          <input name="name" required maxLength={200} />
        </label>
        <label>
          {t('kind')}
          <select name="kind" defaultValue="email">
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`kind.${k}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          {t('create')}
        </button>
        {created && (
          <p role="status">
            {`${t('created')}: `}
            <Link to="template" id={created.id}>
              {created.name}
            </Link>
          </p>
        )}
      </form>
      <h2 id="templates-list">{t('list')}</h2>
      <FilterSelect label={t('show')} value={kind} values={KINDS} any={t('all')} words={(k) => t(`kind.${k}`)} onChange={setKind} inline={false} />
      <QueryView query={list} isEmpty={(l) => !l.data?.length} empty={t('none')}>
        {(l) => (
          <Scrollable labelledBy="templates-list">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('name')}</th>
                  <th scope="col">{t('kind')}</th>
                  <th scope="col">{t('latest')}</th>
                  <th scope="col">{t('published')}</th>
                </tr>
              </thead>
              <tbody>
                {(l.data ?? []).map((tpl) => (
                  <tr key={tpl.id}>
                    <th scope="row">
                      <Link to="template" id={tpl.id}>
                        {tpl.name}
                      </Link>
                    </th>
                    <td>{t(`kind.${tpl.kind}`)}</td>
                    <td>{tpl.latestVersion}</td>
                    <td>{tpl.publishedVersion ?? t('notPublished')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </main>
  );
}
