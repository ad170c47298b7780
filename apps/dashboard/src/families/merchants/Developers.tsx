import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { SikaError, type Environment } from '../../../../../clients/typescript/src/index.js';
import { formatWhen, LanguageContext, useT } from '../../shell/i18n.js';
import { useSecondFactor } from '../../shell/secondFactor.js';
import { CopyButton, CursorPager, ErrorMessage, errorText, QueryView, Scrollable, useCursorPages } from '../../shell/components.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';

const GRACE_PERIODS = [0, 60, 1440, 10080] as const;

/**
 * The API reference the service serves at /docs (a page of the service, outside the dashboard), API
 * keys (create with the secret shown once, roll, revoke) and the events of the environment shown.
 */
export function Developers({ environment, onSignedOut }: PageProps) {
  const t = useT();
  return (
    <main className="page">
      <h1>{t('nav.developers')}</h1>
      <p>
        {t('developers.referenceIntro')} <a href="/docs/">{t('developers.reference')}</a>
      </p>
      <ApiKeys environment={environment} onSignedOut={onSignedOut} />
      <Events environment={environment} onSignedOut={onSignedOut} />
    </main>
  );
}

function ApiKeys({ environment, onSignedOut }: { environment: Environment; onSignedOut: () => void }) {
  const t = useT();
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const { guarded, challenged, form: factorForm } = useSecondFactor();
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const keys = useQuery({
    queryKey: ['api-keys', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/api-keys', { params: { query: { limit: 100 } } }), onSignedOut),
  });
  const refresh = () => queries.invalidateQueries({ queryKey: ['api-keys', environment] });
  const act = useMutation({
    mutationFn: async (work: () => Promise<unknown>) => work(),
    onSuccess: refresh,
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });

  const create = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    const form = new FormData(e.currentTarget);
    const name = String(form.get('name'));
    const scopes: ('*' | '*.read')[] = form.get('scopes') === 'read' ? ['*.read'] : ['*'];
    const target = e.currentTarget;
    // A new secret always takes a fresh proof (docs/merchants.md, "API keys"): by e-mail for a user without a second factor.
    act.mutate(async () => {
      const challenge_id = await challenged('api-keys/create');
      if (challenge_id === null) return;
      const key = await sika.post('/api/v1/merchant/api-keys', { body: { name, scopes, challenge_id } });
      if (key.secret) {
        setSecret({ name, secret: key.secret });
        target.reset();
      }
    });
  };
  const roll = (id: string, grace: number) =>
    act.mutate(async () => {
      const challenge_id = await challenged('api-keys/roll');
      if (challenge_id === null) return;
      const key = await sika.post('/api/v1/merchant/api-keys/{id}/roll', { params: { path: { id } }, body: { grace_period_minutes: grace, challenge_id } });
      if (key.secret) setSecret({ name: key.name ?? '', secret: key.secret });
    });
  const revoke = (id: string) => act.mutate(() => guarded('api-keys/revoke', (challenge_id) => sika.delete('/api/v1/merchant/api-keys/{id}', { params: { path: { id } }, body: challenge_id ? { challenge_id } : {} })));

  const forbidden = keys.error instanceof SikaError && keys.error.status === 403;
  return (
    <section aria-labelledby="api-keys">
      <h2 id="api-keys">{t('keys.title')}</h2>
      {factorForm}
      <ErrorMessage text={error} />
      {secret && (
        <div className="panel secret" role="status">
          <p>
            {t('keys.secretOnce')} <strong>{secret.name}</strong>
          </p>
          <code>{secret.secret}</code>
          <div className="actions">
            <CopyButton text={secret.secret} />
            <button type="button" className="secondary" onClick={() => setSecret(null)}>
              {t('action.done')}
            </button>
          </div>
        </div>
      )}
      {forbidden ? (
        <p>{t('keys.forbidden')}</p>
      ) : (
        <QueryView query={keys}>
          {(list) => (
            <>
              <form className="inline-form" onSubmit={create} aria-label={t('keys.create')}>
                <label>
                  {t('keys.name')}
                  <input name="name" required maxLength={100} />
                </label>
                <label>
                  {t('keys.scopes')}
                  <select name="scopes">
                    <option value="all">{t('keys.scopes.all')}</option>
                    <option value="read">{t('keys.scopes.read')}</option>
                  </select>
                </label>
                <button type="submit" disabled={act.isPending}>
                  {t('keys.create')}
                </button>
              </form>
              {/* Only the secret's hash is stored (packages/families/merchants/read/api-keys.ts): "reveal" would need the secret kept. */}
              <p className="help">{t('keys.notKept')}</p>
              <Scrollable labelledBy="api-keys">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('keys.name')}</th>
                      <th scope="col">{t('keys.key')}</th>
                      <th scope="col">{t('keys.scopes')}</th>
                      <th scope="col">{t('keys.status')}</th>
                      <th scope="col">{t('keys.lastUsed')}</th>
                      <th scope="col">{t('keys.actions')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(list.data ?? []).map((k) => (
                      <tr key={k.id}>
                        <th scope="row">{k.name ?? '—'}</th>
                        <td>
                          <code>{k.redacted_secret}</code>
                        </td>
                        <td>{(k.scopes ?? []).join(', ')}</td>
                        <td>
                          <Badge status={k.status ?? 'active'}>{t(`keys.status.${k.status ?? 'active'}`)}</Badge>
                          {k.status === 'expiring' ? ` (${formatWhen(language, k.expires_at)})` : ''}
                        </td>
                        <td>{formatWhen(language, k.last_used)}</td>
                        <td className="row-actions">
                          <KeyActions name={k.name ?? k.id!} status={k.status ?? 'active'} onRoll={(grace) => roll(k.id!, grace)} onRevoke={() => revoke(k.id!)} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scrollable>
            </>
          )}
        </QueryView>
      )}
    </section>
  );
}

/** Roll (with the grace period picked) and revoke, for one key. */
function KeyActions({ name, status, onRoll, onRevoke }: { name: string; status: string; onRoll(grace: number): void; onRevoke(): void }) {
  const t = useT();
  const [grace, setGrace] = useState(0);
  return (
    <>
      {status === 'active' && (
        <>
          <select value={grace} onChange={(e) => setGrace(Number(e.target.value))} aria-label={`${t('keys.grace')}: ${name}`}>
            {GRACE_PERIODS.map((m) => (
              <option key={m} value={m}>
                {t(`keys.grace.${m}`)}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => onRoll(grace)} aria-label={`${t('keys.roll')}: ${name}`}>
            {t('keys.roll')}
          </button>
        </>
      )}
      {(status === 'active' || status === 'expiring') && (
        <button type="button" className="danger" onClick={onRevoke} aria-label={`${t('keys.revoke')}: ${name}`}>
          {t('keys.revoke')}
        </button>
      )}
    </>
  );
}

function Events({ environment, onSignedOut }: { environment: Environment; onSignedOut: () => void }) {
  const t = useT();
  const { language } = useContext(LanguageContext);
  const [type, setType] = useState('');
  const [eventId, setEventId] = useState('');
  const pages = useCursorPages(`${environment}:${type}`);
  const events = useQuery({
    queryKey: ['events', environment, type, pages.after],
    queryFn: () => withSession(() => sika.get('/api/v1/events', { params: { query: { limit: 20, ...(type ? { type } : {}), ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut),
  });
  // One event by its id (from a webhook delivery or a log line), as its webhook carried it.
  const found = useQuery({
    queryKey: ['event', environment, eventId],
    queryFn: () => withSession(() => sika.get('/api/v1/events/{id}', { params: { path: { id: eventId } } }), onSignedOut),
    enabled: eventId !== '',
  });
  const filter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setType(String(new FormData(e.currentTarget).get('type')).trim());
  };
  const find = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setEventId(String(new FormData(e.currentTarget).get('id')).trim());
  };
  return (
    <section aria-labelledby="events">
      <h2 id="events">{t('events.title')}</h2>
      <form className="inline-form" onSubmit={filter} role="search" aria-label={t('events.filter')}>
        <label>
          {t('events.type')}
          <input name="type" placeholder="payout.*" defaultValue={type} />
        </label>
        <button type="submit">{t('events.filter')}</button>
      </form>
      <form className="inline-form" onSubmit={find} role="search" aria-label={t('events.find')}>
        <label>
          {t('events.id')}
          <input name="id" placeholder="evt_…" required maxLength={100} />
        </label>
        <button type="submit">{t('events.find')}</button>
      </form>
      {eventId !== '' && (
        <QueryView query={found}>
          {(e) => (
            <div className="panel" role="region" aria-label={t('events.found')}>
              <p>
                <span>{formatWhen(language, e.created)}</span> <strong>{e.type}</strong> <code>{e.id}</code>
              </p>
              <pre>{JSON.stringify(e, null, 2)}</pre>
            </div>
          )}
        </QueryView>
      )}
      <QueryView query={events} isEmpty={(d) => !d.data?.length} empty={t('events.none')}>
        {(list) => (
          <>
            <ul className="events">
              {(list.data ?? []).map((e) => (
                <li key={e.id}>
                  <details>
                    <summary>
                      <span>{formatWhen(language, e.created)}</span> <strong>{e.type}</strong> <code>{e.id}</code>
                    </summary>
                    <pre>{JSON.stringify(e, null, 2)}</pre>
                  </details>
                </li>
              ))}
            </ul>
            <CursorPager pages={pages} label={t('events.pages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </section>
  );
}
