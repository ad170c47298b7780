import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { CursorPager, ErrorMessage, errorText, Link, QueryView, Scrollable, useCursorPages } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { webhookMessages as messages } from './webhooks.messages.js';
import { SecretPanel, useEndpointActions, type ShownSecret } from './webhooks.shared.js';

/** Webhook endpoints of the environment shown: a new one (its signing secret shown once), the list with enable/disable and rotate. */
export function Webhooks({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const pages = useCursorPages(environment);
  const after = pages.after;
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints', environment, 'list', after],
    queryFn: () => withSession(() => sika.get('/api/v1/webhook-endpoints', { params: { query: { limit: 20, ...(after ? { starting_after: after } : {}) } } }), onSignedOut),
  });
  const actions = useEndpointActions(environment, setShown, setError);
  const create = useMutation({
    mutationFn: async (form: FormData) => {
      const url = String(form.get('url') ?? '').trim();
      const enabled_events = String(form.get('events') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return sika.post('/api/v1/webhook-endpoints', { body: { url, enabled_events } });
    },
    onSuccess: (endpoint) => {
      setShown({ url: endpoint.url, secret: endpoint.secret, rotated: false });
      pages.reset();
      void queries.invalidateQueries({ queryKey: ['webhook-endpoints', environment] });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    setShown(null);
    const form = e.currentTarget;
    create.mutate(new FormData(form), { onSuccess: () => form.reset() });
  };

  return (
    <main className="page">
      <h1>{t('nav.webhooks')}</h1>
      <section aria-labelledby="new-endpoint">
        <h2 id="new-endpoint">{t('new')}</h2>
        <ErrorMessage text={error} />
        {shown && <SecretPanel shown={shown} onDone={() => setShown(null)} />}
        <form className="inline-form" onSubmit={submit} aria-label={t('new')}>
          <label className="wide">
            {t('url')}
            <input name="url" type="url" inputMode="url" required maxLength={2048} placeholder="https://" aria-describedby="url-help" />
            <small id="url-help">{t('urlHelp')}</small>
          </label>
          <label className="wide">
            {t('events')}
            <input name="events" required defaultValue="*" aria-describedby="events-help" />
            <small id="events-help">{t('eventsHelp')}</small>
          </label>
          <button type="submit" disabled={create.isPending}>
            {t('create')}
          </button>
        </form>
      </section>

      <section aria-labelledby="endpoint-list">
        <h2 id="endpoint-list">{t('list')}</h2>
        <QueryView query={endpoints} isEmpty={(list) => list.data.length === 0 && pages.isFirst} empty={t('none')}>
          {(list) => (
            <>
              <Scrollable labelledBy="endpoint-list">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('endpoint')}</th>
                      <th scope="col">{t('status')}</th>
                      <th scope="col">{t('secret')}</th>
                      <th scope="col">{t('created')}</th>
                      <th scope="col">{t('actions')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.map((e) => (
                      <tr key={e.id}>
                        <th scope="row" className="wrap">
                          <Link to="webhookEndpoint" id={e.id}>
                            {e.url}
                          </Link>
                          <span className="muted">{e.enabled_events.join(', ')}</span>
                        </th>
                        <td>
                          {t(e.enabled ? 'state.enabled' : 'state.disabled')}
                          {e.status === 'failing' ? ` (${t('state.failing')})` : ''}
                        </td>
                        <td>
                          <code>…{e.secret_last4}</code>
                        </td>
                        <td>{formatWhen(language, e.created, 'second')}</td>
                        <td className="row-actions">
                          <button type="button" className="secondary" disabled={actions.pending} onClick={() => actions.setEnabled(e, !e.enabled)} aria-label={t(e.enabled ? 'disableNamed' : 'enableNamed', { url: e.url })}>
                            {t(e.enabled ? 'disable' : 'enable')}
                          </button>
                          <button type="button" disabled={actions.pending} onClick={() => actions.rotate(e)} aria-label={t('rotateNamed', { url: e.url })}>
                            {t('rotate')}
                          </button>
                          <button type="button" className="danger" disabled={actions.pending} onClick={() => actions.remove(e)} aria-label={t('deleteNamed', { url: e.url })}>
                            {t('delete')}
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scrollable>
              <CursorPager pages={pages} label={t('pages')} hasMore={list.has_more} lastId={list.data.at(-1)?.id} />
            </>
          )}
        </QueryView>
      </section>
    </main>
  );
}
