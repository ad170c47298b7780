import { useQuery } from '@tanstack/react-query';
import { Badge } from './Badge.js';
import { useContext } from 'react';
import { QueryView, Scrollable } from './components.js';
import { formatWhen, LanguageContext, useMessages, type Language } from './i18n.js';
import { sika, withSession } from './session.js';
import { objectHistoryMessages } from './objectHistory.messages.js';

/** An event of an object's history (GET /api/v1/payment-intents/{id}/events, /api/v1/payouts/{id}/events). */
export interface HistoryEvent {
  id: string;
  type: string;
  created: number;
  actor?: string | null;
  data: unknown;
}

/**
 * An object's history from the log, newest first: when, what happened (in `words`; a type they do
 * not name shows as the API names it), the status it left, and who caused it.
 */
export function ObjectHistory({
  id,
  query,
  words,
  status,
  environment,
  onSignedOut,
}: {
  id: string;
  query: Parameters<typeof QueryView<{ data?: HistoryEvent[] }>>[0]['query'];
  words: Record<string, Record<Language, string>>;
  status: (status: string) => string;
  environment: string;
  onSignedOut: () => void;
}) {
  const t = useMessages(objectHistoryMessages);
  const { language } = useContext(LanguageContext);
  const actorName = useActorNames(environment, onSignedOut);
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{t('history')}</h2>
      <QueryView query={query} isEmpty={(h) => !h.data?.length} empty={t('none')}>
        {(h) => (
          <Scrollable labelledBy={id}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('when')}</th>
                  <th scope="col">{t('event')}</th>
                  <th scope="col">{t('status')}</th>
                  <th scope="col">{t('actor')}</th>
                </tr>
              </thead>
              <tbody>
                {(h.data ?? []).map((e) => (
                  <tr key={e.id}>
                    <th scope="row">{formatWhen(language, e.created, 'second')}</th>
                    <td>{words[e.type]?.[language] ?? e.type}</td>
                    <td>
                      <Badge status={(e.data as { status: string }).status}>{status((e.data as { status: string }).status)}</Badge>
                    </td>
                    <td>{actorName(e.actor ?? null)}</td>
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

/** Who caused an event, in words: a team member by name, an API key by its name, the operator, or Sika itself. */
function useActorNames(environment: string, onSignedOut: () => void): (actor: string | null) => string {
  const t = useMessages(objectHistoryMessages);
  const members = useQuery({ queryKey: ['team-members', environment], queryFn: () => withSession(() => sika.get('/api/v1/merchant/team/members'), onSignedOut) });
  // Only owners and admins may list keys: for others a key shows by its id.
  const keys = useQuery({ queryKey: ['api-keys', environment, 'names'], queryFn: () => withSession(() => sika.get('/api/v1/merchant/api-keys', { params: { query: { limit: 100 } } }), onSignedOut) });
  return (actor) => {
    if (!actor) return '—';
    if (actor.startsWith('user:')) {
      const member = members.data?.data?.find((m) => m.user_id === actor.slice(5));
      return t('actor.user', { name: member ? `${member.name ?? ''} (${member.email ?? ''})`.trim() : actor.slice(5) });
    }
    // A connector's news (`connector:sandbox`); events recorded before connectors were named say `provider:…`.
    if (actor.startsWith('connector:') || actor.startsWith('provider:')) return t('actor.operator');
    const apiKey = keys.data?.data?.find((k) => k.id === actor);
    if (apiKey || actor.startsWith('key_')) return t('actor.key', { name: apiKey?.name ?? actor });
    return t('actor.service');
  };
}
