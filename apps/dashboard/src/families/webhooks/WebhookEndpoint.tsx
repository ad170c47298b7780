import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import type { Environment } from '../../../../../clients/typescript/src/index.js';
import { CursorPager, ErrorMessage, errorText, isNotFound, Link, NavigationContext, NotFound, QueryView, retryUnlessNotFound, Scrollable, useCursorPages, FilterSelect } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { webhookMessages as messages } from './webhooks.messages.js';
import { SecretPanel, useEndpointActions, type ShownSecret, type WebhookEndpoint as Endpoint } from './webhooks.shared.js';

const STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'skipped'] as const;
type DeliveryStatus = (typeof STATUSES)[number];
/** While a listed delivery is pending (its first attempt is moments away), the list is read again this often. */
const FOLLOW_MS = 1000;
/** The type the API sends a test event of when none is asked for and the endpoint takes every type (docs/webhooks.md). */
const DEFAULT_TEST_TYPE = 'payment_intent.succeeded';
/** Test events' ids hold `_test_` (docs/webhooks.md, "Sending a test event"). */
const isTest = (eventId: string) => eventId.startsWith('evt_test_');

/** One webhook endpoint: what it is, enable/disable, rotate, send a test event; its deliveries, a delivery's attempts with the answers, replay. */
export function WebhookEndpoint({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const endpointId = id ?? '';
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const endpoint = useQuery({
    queryKey: ['webhook-endpoints', environment, 'one', endpointId],
    queryFn: () => withSession(() => sika.get('/api/v1/webhook-endpoints/{id}', { params: { path: { id: endpointId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const go = useContext(NavigationContext);
  const actions = useEndpointActions(environment, setShown, setError, () => go('webhooks'));
  const replayFailed = useMutation({
    mutationFn: () => sika.post('/api/v1/webhook-replays', { body: { webhook_endpoint_id: endpointId } }),
    onMutate: () => {
      setError(null);
      setNotice(null);
    },
    onSuccess: (replay) => {
      setNotice(t('replayFailedDone', { count: replay.queued }));
      void queries.invalidateQueries({ queryKey: ['webhook-deliveries', environment, endpointId] });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });

  if (endpoint.isError && isNotFound(endpoint.error)) return <NotFound title={t('title')} message={t('notFound')} back="webhooks" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="webhooks">{t('back')}</Link>
      </p>
      <h1>{t('title')}</h1>
      <ErrorMessage text={error} />
      {notice && <p role="status">{notice}</p>}
      {shown && <SecretPanel shown={shown} onDone={() => setShown(null)} />}
      <QueryView query={endpoint}>
        {(e) => (
          <>
            <dl className="facts">
              <dt>{t('url')}</dt>
              <dd>{e.url}</dd>
              <dt>{t('events')}</dt>
              <dd>{e.enabled_events.join(', ')}</dd>
              <dt>{t('status')}</dt>
              <dd>
                {t(e.enabled ? 'state.enabled' : 'state.disabled')}
                {e.status === 'failing' ? ` (${t('state.failing')})` : ''}
              </dd>
              <dt>{t('secret')}</dt>
              <dd>
                <code>…{e.secret_last4}</code>
                {e.has_previous_secret && <> {t('previousSecret', { when: formatWhen(language, e.previous_secret_expires_at, 'second') })}</>}
                {e.rotation_recommended && <> {t('rotationRecommended')}</>}
              </dd>
              <dt>{t('secretCreated')}</dt>
              <dd>{formatWhen(language, e.secret_created_at, 'second')}</dd>
              <dt>{t('created')}</dt>
              <dd>{formatWhen(language, e.created, 'second')}</dd>
            </dl>
            <div className="actions">
              <button type="button" className="secondary" disabled={actions.pending} onClick={() => actions.setEnabled(e, !e.enabled)}>
                {t(e.enabled ? 'disable' : 'enable')}
              </button>
              <button type="button" disabled={actions.pending} onClick={() => actions.rotate(e)}>
                {t('rotate')}
              </button>
              <button type="button" className="secondary" disabled={replayFailed.isPending} onClick={() => replayFailed.mutate()}>
                {t('replayFailed')}
              </button>
              <button type="button" className="danger" disabled={actions.pending} onClick={() => actions.remove(e)}>
                {t('delete')}
              </button>
            </div>
            {e.enabled && <SendTestEvent environment={environment} endpoint={e} onError={setError} onNotice={setNotice} />}
            <Deliveries environment={environment} onSignedOut={onSignedOut} endpointId={endpointId} onError={setError} />
          </>
        )}
      </QueryView>
    </main>
  );
}

/**
 * Sends the endpoint a test event of a type it listens to: a choice of its types, or any type
 * (empty: the API's default) when it takes `*`. The new delivery then shows in the list.
 */
function SendTestEvent({ environment, endpoint, onError, onNotice }: { environment: Environment; endpoint: Endpoint; onError: (text: string | null) => void; onNotice: (text: string | null) => void }) {
  const t = useMessages(messages);
  const queries = useQueryClient();
  const types = endpoint.enabled_events.filter((type) => type !== '*');
  const anyType = endpoint.enabled_events.includes('*');
  const send = useMutation({
    mutationFn: (type: string) => sika.post('/api/v1/webhook-endpoints/{id}/send_test_event', { params: { path: { id: endpoint.id } }, body: type ? { type } : {} }),
    onMutate: () => {
      onError(null);
      onNotice(null);
    },
    onSuccess: (delivery) => {
      onNotice(t('sendTestDone', { type: delivery.event_type }));
      void queries.invalidateQueries({ queryKey: ['webhook-deliveries', environment, endpoint.id] });
    },
    onError: (err) => onError(errorText(err, t('error.generic'))),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    send.mutate(String(new FormData(e.currentTarget).get('type') ?? '').trim());
  };
  return (
    <section aria-labelledby="send-test">
      <h2 id="send-test">{t('sendTest')}</h2>
      <form className="inline-form" onSubmit={submit} aria-label={t('sendTest')}>
        <label className="wide">
          {t('sendTestType')}
          {anyType ? (
            <>
              <input name="type" list="test-event-types" maxLength={100} placeholder={types[0] ?? DEFAULT_TEST_TYPE} aria-describedby="send-test-help" />
              <datalist id="test-event-types">
                {types.map((type) => (
                  <option key={type} value={type} />
                ))}
              </datalist>
            </>
          ) : (
            <select name="type" aria-describedby="send-test-help">
              {types.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          )}
          <small id="send-test-help">{anyType ? t('sendTestAnyHelp', { type: types[0] ?? DEFAULT_TEST_TYPE }) : t('sendTestHelp')}</small>
        </label>
        <button type="submit" disabled={send.isPending}>
          {t('sendTestButton')}
        </button>
      </form>
    </section>
  );
}

function Deliveries({ environment, onSignedOut, endpointId, onError }: { environment: Environment; onSignedOut: () => void; endpointId: string; onError: (text: string | null) => void }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const [status, setStatus] = useState<'' | DeliveryStatus>('');
  const [open, setOpen] = useState<string | null>(null);
  const pages = useCursorPages(`${environment}/${status}`);
  const after = pages.after;
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', environment, endpointId, 'list', status, after],
    queryFn: () =>
      withSession(
        () =>
          sika.get('/api/v1/webhook-endpoints/{id}/deliveries', {
            params: { path: { id: endpointId }, query: { limit: 20, ...(status ? { status } : {}), ...(after ? { starting_after: after } : {}) } },
          }),
        onSignedOut,
      ),
    refetchInterval: (q) => (q.state.data?.data.some((d) => d.status === 'pending') ? FOLLOW_MS : false),
  });
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">{t('deliveries')}</h2>
      <FilterSelect label={t('filter')} value={status} values={STATUSES} any={t('filter.all')} words={(s) => t(`delivery.${s}`)} onChange={setStatus} />
      <QueryView query={deliveries} isEmpty={(list) => list.data.length === 0 && pages.isFirst} empty={t('noDeliveries')}>
        {(list) => (
          <>
            <Scrollable labelledBy="deliveries">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('eventType')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('created')}</th>
                    <th scope="col">{t('attemptCount')}</th>
                    <th scope="col">{t('nextAttempt')}</th>
                    <th scope="col">{t('actions')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((d) => (
                    <tr key={d.id}>
                      <th scope="row">
                        {d.event_type}
                        {isTest(d.event_id) && <> ({t('testMark')})</>}
                      </th>
                      <td>
                        <Badge status={d.status}>{t(`delivery.${d.status}`)}</Badge>
                      </td>
                      <td>{formatWhen(language, d.created, 'second')}</td>
                      <td>{d.attempt_count}</td>
                      <td>{formatWhen(language, d.next_attempt_at, 'second')}</td>
                      <td className="row-actions">
                        <button
                          type="button"
                          className="secondary"
                          aria-expanded={open === d.id}
                          aria-label={t('openNamed', { event: d.event_type, when: formatWhen(language, d.created, 'second') })}
                          onClick={() => setOpen(open === d.id ? null : d.id)}
                        >
                          {t('open')}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('deliveryPages')} hasMore={list.has_more} lastId={list.data.at(-1)?.id} />
          </>
        )}
      </QueryView>
      {open && <DeliveryAttempts environment={environment} onSignedOut={onSignedOut} endpointId={endpointId} deliveryId={open} onError={onError} onClose={() => setOpen(null)} />}
    </section>
  );
}

/** A delivery's attempts, first to last, each with its answer; replay its event to this endpoint. */
function DeliveryAttempts({
  environment,
  onSignedOut,
  endpointId,
  deliveryId,
  onError,
  onClose,
}: {
  environment: Environment;
  onSignedOut: () => void;
  endpointId: string;
  deliveryId: string;
  onError: (text: string | null) => void;
  onClose: () => void;
}) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [replayed, setReplayed] = useState(false);
  const delivery = useQuery({
    queryKey: ['webhook-deliveries', environment, endpointId, 'one', deliveryId],
    queryFn: () => withSession(() => sika.get('/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}', { params: { path: { id: endpointId, deliveryId } } }), onSignedOut),
    refetchInterval: (q) => (q.state.data?.status === 'pending' ? FOLLOW_MS : false),
  });
  const replay = useMutation({
    mutationFn: (eventId: string) => sika.post('/api/v1/webhook-replays', { body: { event_id: eventId, webhook_endpoint_id: endpointId } }),
    onMutate: () => {
      onError(null);
      setReplayed(false);
    },
    onSuccess: () => {
      setReplayed(true);
      void queries.invalidateQueries({ queryKey: ['webhook-deliveries', environment, endpointId] });
    },
    onError: (err) => onError(errorText(err, t('error.generic'))),
  });
  return (
    <section aria-labelledby="delivery-attempts" className="panel">
      <QueryView query={delivery}>
        {(d) => (
          <>
            <h3 id="delivery-attempts">{t('delivery', { event: d.event_type })}</h3>
            <dl className="facts">
              <dt>{t('eventId')}</dt>
              <dd>
                <code>{d.event_id}</code>
              </dd>
              <dt>{t('status')}</dt>
              <dd>
                <Badge status={d.status}>{t(`delivery.${d.status}`)}</Badge>
              </dd>
            </dl>
            {d.attempts.length === 0 ? (
              <p>{t('noAttempts')}</p>
            ) : (
              <>
                <p className="muted">{t('answerHelp')}</p>
                <ol className="attempts" aria-label={t('attempts')}>
                  {d.attempts.map((a) => (
                    <li key={a.attempt}>
                      <dl className="facts">
                        <dt>{t('attempt')}</dt>
                        <dd>{a.attempt}</dd>
                        <dt>{t('started')}</dt>
                        <dd>{formatWhen(language, a.started_at, 'second')}</dd>
                        <dt>{t('duration')}</dt>
                        <dd>{t('durationMs', { ms: a.duration_ms })}</dd>
                        <dt>{t('responseStatus')}</dt>
                        <dd>{a.response_status ?? t('noAnswer')}</dd>
                        {a.error && (
                          <>
                            <dt>{t('error')}</dt>
                            <dd>{a.error}</dd>
                          </>
                        )}
                        <dt>{t('answer')}</dt>
                        <dd>{a.response_body ? <pre>{a.response_body}</pre> : '—'}</dd>
                      </dl>
                    </li>
                  ))}
                </ol>
              </>
            )}
            {replayed && <p role="status">{t('replayed')}</p>}
            <div className="actions">
              <button type="button" disabled={replay.isPending} onClick={() => replay.mutate(d.event_id)}>
                {t('replay')}
              </button>
              <button type="button" className="secondary" onClick={onClose}>
                {t('close')}
              </button>
            </div>
          </>
        )}
      </QueryView>
    </section>
  );
}
