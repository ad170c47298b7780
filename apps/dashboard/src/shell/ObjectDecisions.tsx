import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { QueryView, Scrollable } from './components.js';
import { decisionOutcome } from './decisions.messages.js';
import { formatWhen, LanguageContext, useMessages } from './i18n.js';
import { sika, withSession } from './session.js';
import { objectDecisionMessages } from './objectDecisions.messages.js';

/**
 * What the service decided about one payment intent or payout, and why (docs/intelligence.md,
 * "Decisions"), newest first: the rail it went on, a risk rule that blocked, held or scored it, a
 * delay or a failure. The reasons are the API's own words.
 */
export function ObjectDecisions({
  id,
  subject,
  pageKey,
  follow = false,
  onSignedOut,
}: {
  id: string;
  subject: string;
  /** The page's query key: what refreshes the page's object (a release, a refund) refreshes its decisions too. */
  pageKey: unknown[];
  /** Asks again this often (ms) while the object may still change, false once it cannot. */
  follow?: number | false;
  onSignedOut: () => void;
}) {
  const t = useMessages(objectDecisionMessages);
  const { language } = useContext(LanguageContext);
  // An object has a handful of decisions: one page holds them all.
  const decisions = useQuery({
    queryKey: [...pageKey, 'decisions'],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/decisions', { params: { query: { subject, limit: 100 } } }), onSignedOut),
    refetchInterval: follow,
  });
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{t('decisions')}</h2>
      <QueryView query={decisions} isEmpty={(d) => !d.data?.length} empty={t('none')}>
        {(list) => (
          <Scrollable labelledBy={id}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('when')}</th>
                  <th scope="col">{t('kind')}</th>
                  <th scope="col">{t('outcome')}</th>
                  <th scope="col">{t('reason')}</th>
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((d) => (
                  <tr key={d.id}>
                    <th scope="row">{formatWhen(language, d.decidedAt, 'second')}</th>
                    <td>{t(`kind.${d.kind}`)}</td>
                    <td>{decisionOutcome(d.outcome)}</td>
                    <td>{d.reason}</td>
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
