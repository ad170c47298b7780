import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import { CursorPager, FilterSelect, Link, QueryView, Scrollable, useCursorPages } from '../../shell/components.js';
import { DECISION_KINDS, decisionOutcome, type DecisionKind } from '../../shell/decisions.messages.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { insightsActivityMessages, STAGES, type Stage } from './insightsActivity.messages.js';

/** Why the service routed, delayed or failed a payment or payout, newest first; each links to its object. */
export function Decisions({ environment, onSignedOut }: Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(insightsActivityMessages);
  const { language } = useContext(LanguageContext);
  const [kind, setKind] = useState<DecisionKind | ''>('');
  const pages = useCursorPages(`${environment}:${kind}`);
  const decisions = useQuery({
    queryKey: ['decisions', environment, kind, pages.after],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/decisions', { params: { query: { limit: 20, ...(kind ? { kind } : {}), ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut),
  });
  return (
    <section aria-labelledby="decisions">
      <h2 id="decisions">{t('decisions')}</h2>
      <FilterSelect label={t('kind')} value={kind} values={DECISION_KINDS} any={t('allKinds')} words={(k) => t(`kind.${k}`)} onChange={setKind} />
      <QueryView query={decisions} isEmpty={(d) => !d.data?.length} empty={t('decisionsNone')}>
        {(list) => (
          <>
            <Scrollable labelledBy="decisions">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('when')}</th>
                    <th scope="col">{t('kind')}</th>
                    <th scope="col">{t('subject')}</th>
                    <th scope="col">{t('outcome')}</th>
                    <th scope="col">{t('reason')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(list.data ?? []).map((d) => (
                    <tr key={d.id}>
                      <th scope="row">{formatWhen(language, d.decidedAt)}</th>
                      <td>{t(`kind.${d.kind}`)}</td>
                      <td>
                        <Link to={d.subject.startsWith('pi_') ? 'payment' : 'payout'} id={d.subject}>
                          <code>{d.subject}</code>
                        </Link>
                      </td>
                      <td>{decisionOutcome(d.outcome)}</td>
                      <td>{d.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('decisionPages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </section>
  );
}

/** How many paying customers are new, active, at risk or churned (with what each means), and who they are. */
export function Lifecycle({ environment, onSignedOut }: Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(insightsActivityMessages);
  const { language } = useContext(LanguageContext);
  const [stage, setStage] = useState<Stage | ''>('');
  const pages = useCursorPages(`${environment}:${stage}`);
  const counts = useQuery({ queryKey: ['lifecycle', environment], queryFn: () => withSession(() => sika.get('/api/v1/intelligence/lifecycle'), onSignedOut) });
  const customers = useQuery({
    queryKey: ['lifecycle-customers', environment, stage, pages.after],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/lifecycle/customers', { params: { query: { limit: 20, ...(stage ? { stage } : {}), ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut),
  });
  return (
    <section aria-labelledby="lifecycle">
      <h2 id="lifecycle">{t('lifecycle')}</h2>
      <QueryView query={counts}>
        {(c) => (
          <dl className="facts">
            {STAGES.map((s) => (
              <div key={s}>
                <dt>{t(`stage.${s}`)}</dt>
                <dd>
                  <strong>{c.stages[s]}</strong> {c.definitions?.[s] && <span className="help">{c.definitions[s]}</span>}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </QueryView>
      <FilterSelect label={t('stage')} value={stage} values={STAGES} any={t('allStages')} words={(s) => t(`stage.${s}`)} onChange={setStage} />
      <QueryView query={customers} isEmpty={(d) => !d.data?.length} empty={t('lifecycleNone')}>
        {(list) => (
          <>
            <Scrollable labelledBy="lifecycle">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('customer')}</th>
                    <th scope="col">{t('stage')}</th>
                    <th scope="col">{t('firstPayment')}</th>
                    <th scope="col">{t('lastPayment')}</th>
                    <th scope="col">{t('payments')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(list.data ?? []).map((c) => (
                    <tr key={c.customer}>
                      <th scope="row">
                        <code>{c.customer}</code>
                      </th>
                      <td>{t(`stage.${c.stage}`)}</td>
                      <td>{formatWhen(language, c.firstPaymentAt)}</td>
                      <td>{formatWhen(language, c.lastPaymentAt)}</td>
                      <td>{c.payments}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('customerPages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.customer} />
          </>
        )}
      </QueryView>
    </section>
  );
}
