import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, QueryView, Scrollable } from '../components.js';
import { useMessages } from '../i18n.js';
import { sika, withSession } from '../session.js';
import type { PageProps } from './props.js';

const KINDS = ['email', 'sms', 'receipt', 'invoice'] as const;
type Kind = (typeof KINDS)[number];

/** What a new template of each kind starts with (version 1, English): the fields its kind needs. */
const STARTER: Record<Kind, Record<string, string>> = {
  email: { subject: 'Hello', text: 'Hello' },
  sms: { text: 'Hello' },
  receipt: { title: 'Receipt', text: 'Thank you' },
  invoice: { title: 'Invoice', text: 'Invoice' },
};

/** A schema of no variables (the generated type of a free-form object admits no key). */
const EMPTY_SCHEMA = { type: 'object', properties: {} } as unknown as Record<string, never>;

const messages = {
  en: {
    title: 'Templates',
    intro: 'E-mails, SMS, receipts and invoices in your brand, written in Liquid.',
    new: 'New template',
    name: 'Name',
    kind: 'Kind',
    create: 'Create the template',
    created: 'Template created',
    show: 'Show',
    all: 'All kinds',
    'kind.email': 'E-mail',
    'kind.sms': 'SMS',
    'kind.receipt': 'Receipt',
    'kind.invoice': 'Invoice',
    list: 'Templates of this environment',
    latest: 'Latest version',
    published: 'Published version',
    none: 'No template in this environment yet.',
    notPublished: 'none',
  },
  fr: {
    title: 'Modèles',
    intro: 'E-mails, SMS, reçus et factures à votre image, écrits en Liquid.',
    new: 'Nouveau modèle',
    name: 'Nom',
    kind: 'Type',
    create: 'Créer le modèle',
    created: 'Modèle créé',
    show: 'Afficher',
    all: 'Tous les types',
    'kind.email': 'E-mail',
    'kind.sms': 'SMS',
    'kind.receipt': 'Reçu',
    'kind.invoice': 'Facture',
    list: 'Modèles de cet environnement',
    latest: 'Dernière version',
    published: 'Version publiée',
    none: 'Aucun modèle dans cet environnement pour l’instant.',
    notPublished: 'aucune',
  },
};

/** Templates: the list by kind and a new template (version 1, a starting text of its kind). */
export function Templates({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const queries = useQueryClient();
  const [kind, setKind] = useState<Kind | ''>('');
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const key = ['templates', environment];
  const list = useQuery({
    queryKey: [...key, kind],
    queryFn: () => withSession(() => sika.get('/api/template-engine/templates', { params: { query: kind ? { kind } : {} } }), onSignedOut),
  });
  const create = useMutation({
    mutationFn: (input: { name: string; kind: Kind }) =>
      sika.post('/api/template-engine/templates', { body: { kind: input.kind, name: input.name, variables: EMPTY_SCHEMA, locales: { en: STARTER[input.kind] } } }),
    onSuccess: (tpl) => {
      setCreated(tpl.name);
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
        {created && <p role="status">{`${t('created')}: ${created}`}</p>}
      </form>
      <h2 id="templates-list">{t('list')}</h2>
      <label>
        {t('show')}
        <select value={kind} onChange={(e) => setKind(e.target.value as Kind | '')}>
          <option value="">{t('all')}</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`kind.${k}`)}
            </option>
          ))}
        </select>
      </label>
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
                    <td>{tpl.name}</td>
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
