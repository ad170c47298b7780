import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, type FormEvent, type ReactNode } from 'react';
import { ErrorMessage, isNotFound, Link, NotFound, QueryView, retryUnlessNotFound, Scrollable, useAction } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { escrowMessages as messages } from './escrow.messages.js';
import type { PageProps } from '../../shell/props.js';

type Contract = Awaited<ReturnType<typeof loadContract>>;
const loadContract = (id: string) => sika.get('/api/v1/escrow/contracts/{id}', { params: { path: { id } } });

/**
 * One escrow contract: what it holds, its participants and milestones, releases (create, execute,
 * cancel), a refund to the payer, disputes (open, resolve), funding by a payment intent, cancel.
 */
export function EscrowContract({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const contractId = id ?? '';
  const key = ['escrow-contract', environment, contractId];
  const contract = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => loadContract(contractId), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const releases = useQuery({
    queryKey: [...key, 'releases'],
    queryFn: () => withSession(() => sika.get('/api/v1/escrow/releases/contract/{contractId}', { params: { path: { contractId }, query: { limit: 100 } } }), onSignedOut),
    enabled: contract.isSuccess,
  });
  const disputes = useQuery({
    queryKey: [...key, 'disputes'],
    queryFn: () => withSession(() => sika.get('/api/v1/escrow/disputes/contract/{contractId}', { params: { path: { contractId }, query: { limit: 100 } } }), onSignedOut),
    enabled: contract.isSuccess,
  });
  // Every change moves money or state the whole page shows: ask for all of it again, and the balance.
  const { action: call, submit: post, error } = useAction(onSignedOut, [key, ['balance', environment]]);

  if (contract.isError && isNotFound(contract.error)) return <NotFound title={t('title')} message={t('notFound')} back="escrow" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="escrow">{t('back')}</Link>
      </p>
      <QueryView query={contract}>
        {(c: Contract) => {
          const money = (minor: number | null | undefined) => formatAmount(language, minor ?? 0, c.currency);
          const amountOf = (data: FormData, name = 'amount') => (String(data.get(name) ?? '') === '' ? undefined : minorUnits(Number(data.get(name)), c.currency));
          const open = c.status !== 'completed' && c.status !== 'canceled';
          const form = (label: string, fields: ReactNode, submit: string, send: (data: FormData) => Promise<unknown>) => (
            <form
              className="inline-form"
              aria-label={label}
              onSubmit={(e: FormEvent<HTMLFormElement>) => {
                e.preventDefault();
                post(e.currentTarget, send);
              }}
            >
              {fields}
              <button type="submit" disabled={call.isPending}>
                {submit}
              </button>
            </form>
          );
          return (
            <>
              <h1>
                {t('contract')} <code>{c.id}</code>
              </h1>
              <ErrorMessage text={error} />
              <dl className="facts">
                <dt>{t('status')}</dt>
                <dd>
                  <Badge status={c.status}>{t(`status.${c.status}`)}</Badge>
                </dd>
                <dt>{t('amount')}</dt>
                <dd>{money(c.amountMinor)}</dd>
                <dt>{t('funded')}</dt>
                <dd>{money(c.fundedMinor)}</dd>
                <dt>{t('held')}</dt>
                <dd>{money(c.heldMinor)}</dd>
                <dt>{t('pendingRelease')}</dt>
                <dd>{money(c.pendingReleaseMinor)}</dd>
                <dt>{t('released')}</dt>
                <dd>{money(c.releasedMinor)}</dd>
                <dt>{t('refunded')}</dt>
                <dd>{money(c.refundedMinor)}</dd>
                <dt>{t('funding')}</dt>
                <dd>
                  {t(`funding.${c.fundingSourceType ?? 'merchant_balance'}`)}
                  {c.paymentIntentId && (
                    <>
                      {' '}
                      (
                      <Link to="payment" id={c.paymentIntentId}>
                        {c.paymentIntentId}
                      </Link>
                      )
                    </>
                  )}
                </dd>
                <dt>{t('releaseMode')}</dt>
                <dd>{t(`releaseMode.${c.defaultReleaseMode ?? 'manual'}`)}</dd>
                <dt>{t('destination')}</dt>
                <dd>{t(`destination.${c.ledgerDestinationType ?? 'merchant_balance'}`)}</dd>
                {c.autoReleaseAtUtc && (
                  <>
                    <dt>{t('autoRelease')}</dt>
                    <dd>{formatWhen(language, c.autoReleaseAtUtc)}</dd>
                  </>
                )}
              </dl>

              {c.fundingSourceType === 'payment_intent' && !c.paymentIntentId && open && (
                <section aria-labelledby="fund-intent">
                  <h2 id="fund-intent">{t('fundWithIntent')}</h2>
                  {form(
                    t('fundWithIntent'),
                    <label>
                      {t('intentId')}
                      <input name="intent" required pattern="pi_\w+" autoComplete="off" />
                    </label>,
                    t('submitIntent'),
                    (data) => sika.post('/api/v1/escrow/contracts/{id}/submit-for-funding', { params: { path: { id: c.id } }, body: { paymentIntentId: String(data.get('intent')) } }),
                  )}
                </section>
              )}

              <section aria-labelledby="participants">
                <h2 id="participants">{t('participants')}</h2>
                {(c.participants ?? []).length === 0 ? (
                  <p>{t('participants.none')}</p>
                ) : (
                  <ul>
                    {(c.participants ?? []).map((p) => (
                      <li key={p.id}>
                        {t(`role.${p.role ?? 'payer'}`)}: {p.displayName}
                        {p.email ? ` <${p.email}>` : ''}
                      </li>
                    ))}
                  </ul>
                )}
                {open &&
                  form(
                    t('addParticipant'),
                    <>
                      <label>
                        {t('role')}
                        <select name="role" defaultValue="beneficiary">
                          {(['payer', 'beneficiary', 'agent'] as const).map((r) => (
                            <option key={r} value={r}>
                              {t(`role.${r}`)}
                            </option>
                          ))}
                        </select>
                      </label>
                      <label>
                        {t('name')}
                        <input name="name" required maxLength={256} />
                      </label>
                      <label>
                        {t('email')}
                        <input name="email" type="email" maxLength={256} />
                      </label>
                    </>,
                    t('addParticipant'),
                    (data) =>
                      sika.post('/api/v1/escrow/contracts/{id}/participants', {
                        params: { path: { id: c.id } },
                        body: { role: data.get('role') as 'payer' | 'beneficiary' | 'agent', displayName: String(data.get('name')), ...(data.get('email') ? { email: String(data.get('email')) } : {}) },
                      }),
                  )}
              </section>

              <section aria-labelledby="milestones">
                <h2 id="milestones">{t('milestones')}</h2>
                {(c.milestones ?? []).length === 0 ? (
                  <p>{t('milestones.none')}</p>
                ) : (
                  <Scrollable labelledBy="milestones">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('milestoneTitle')}</th>
                          <th scope="col">{t('amount')}</th>
                          <th scope="col">{t('status')}</th>
                          <th scope="col">{t('complete')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {(c.milestones ?? []).map((m) => (
                          <tr key={m.id}>
                            <th scope="row">{m.title}</th>
                            <td className="amount">{money(m.amountMinor)}</td>
                            <td>{t(`milestone.${m.status ?? 'open'}`)}</td>
                            <td>
                              {m.status === 'open' && (
                                <button
                                  type="button"
                                  className="secondary"
                                  aria-label={`${t('complete')}: ${m.title}`}
                                  onClick={() => call.mutate(() => sika.post('/api/v1/escrow/contracts/{id}/milestones/{milestoneId}/complete', { params: { path: { id: c.id, milestoneId: m.id! } } }))}
                                >
                                  {t('complete')}
                                </button>
                              )}
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scrollable>
                )}
                {open &&
                  form(
                    t('addMilestone'),
                    <>
                      <label>
                        {t('milestoneTitle')}
                        <input name="title" required maxLength={256} />
                      </label>
                      <label>
                        {t('amount')} ({c.currency.toUpperCase()})
                        <input name="amount" type="number" min="0" step="any" required />
                      </label>
                    </>,
                    t('addMilestone'),
                    (data) => sika.post('/api/v1/escrow/contracts/{id}/milestones', { params: { path: { id: c.id } }, body: { title: String(data.get('title')), amountMinor: amountOf(data)! } }),
                  )}
              </section>

              <section aria-labelledby="releases">
                <h2 id="releases">{t('releases')}</h2>
                {open &&
                  form(
                    t('newRelease'),
                    <>
                      <label>
                        {t('amount')} ({c.currency.toUpperCase()})
                        <input name="amount" type="number" min="0" step="any" />
                      </label>
                      <label>
                        {t('releaseFor')}
                        <select name="milestone" defaultValue="">
                          <option value="">—</option>
                          {(c.milestones ?? [])
                            .filter((m) => m.status === 'completed')
                            .map((m) => (
                              <option key={m.id} value={m.id}>
                                {m.title}
                              </option>
                            ))}
                        </select>
                      </label>
                    </>,
                    t('release'),
                    (data) => {
                      const milestoneId = String(data.get('milestone') ?? '');
                      const amountMinor = amountOf(data);
                      return sika.post('/api/v1/escrow/releases/contract/{contractId}', {
                        params: { path: { contractId: c.id } },
                        body: { ...(amountMinor ? { amountMinor } : {}), ...(milestoneId ? { milestoneId, trigger: 'milestone' as const } : {}) },
                      });
                    },
                  )}
                <QueryView query={releases} isEmpty={(r) => !r.data?.length} empty={t('releases.none')}>
                  {(list) => (
                    <Scrollable labelledBy="releases">
                      <table>
                        <thead>
                          <tr>
                            <th scope="col">{t('when')}</th>
                            <th scope="col">{t('amount')}</th>
                            <th scope="col">{t('status')}</th>
                            <th scope="col">{t('execute')}</th>
                          </tr>
                        </thead>
                        <tbody>
                          {((list.data ?? []) as { id: string; amountMinor: number; status: string; created?: number; createdAt?: string }[]).map((r) => (
                            <tr key={r.id}>
                              <th scope="row">{r.createdAt ? formatWhen(language, r.createdAt) : r.id}</th>
                              <td className="amount">{money(r.amountMinor)}</td>
                              <td>
                                <Badge status={r.status}>{t(`release.${r.status as 'pending' | 'executed' | 'canceled' | 'returned'}`)}</Badge>
                              </td>
                              <td className="actions">
                                {r.status === 'pending' && (
                                  <>
                                    <button
                                      type="button"
                                      aria-label={`${t('execute')}: ${money(r.amountMinor)}`}
                                      onClick={() => call.mutate(() => sika.post('/api/v1/escrow/releases/{id}/execute', { params: { path: { id: r.id } }, body: {} }))}
                                    >
                                      {t('execute')}
                                    </button>
                                    <button
                                      type="button"
                                      className="secondary"
                                      aria-label={`${t('cancelRelease')}: ${money(r.amountMinor)}`}
                                      onClick={() => call.mutate(() => sika.post('/api/v1/escrow/releases/{id}/cancel', { params: { path: { id: r.id } } }))}
                                    >
                                      {t('cancelRelease')}
                                    </button>
                                  </>
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

              {open && c.heldMinor > 0 && (
                <section aria-labelledby="refund">
                  <h2 id="refund">{t('refund')}</h2>
                  {form(
                    t('refund'),
                    <label>
                      {t('refundAll')}
                      <input name="amount" type="number" min="0" step="any" />
                    </label>,
                    t('refund'),
                    (data) => {
                      const amountMinor = amountOf(data);
                      return sika.post('/api/v1/escrow/contracts/{id}/refund', { params: { path: { id: c.id } }, body: amountMinor ? { amountMinor } : {} });
                    },
                  )}
                </section>
              )}

              <section aria-labelledby="disputes">
                <h2 id="disputes">{t('disputes')}</h2>
                <QueryView query={disputes} isEmpty={(d) => !d.data?.length} empty={t('disputes.none')}>
                  {(list) => (
                    <ul>
                      {((list.data ?? []) as { id: string; reason: string; status: string; outcome?: string | null }[]).map((d) => (
                        <li key={d.id}>
                          {d.reason} <Badge status={d.status}>{t(`dispute.${d.status as 'open' | 'resolved'}`)}</Badge>
                          {d.outcome ? ` (${t(`outcome.${d.outcome as 'split'}`)})` : ''}
                          {d.status === 'open' &&
                            form(
                              `${t('resolve')}: ${d.reason}`,
                              <>
                                <label>
                                  {t('outcome')}
                                  <select name="outcome" defaultValue="release_to_beneficiary">
                                    {(['release_to_beneficiary', 'refund_to_payer', 'split', 'dismissed'] as const).map((o) => (
                                      <option key={o} value={o}>
                                        {t(`outcome.${o}`)}
                                      </option>
                                    ))}
                                  </select>
                                </label>
                                <label>
                                  {t('splitRelease')} ({c.currency.toUpperCase()})
                                  <input name="split" type="number" min="0" step="any" />
                                </label>
                              </>,
                              t('resolve'),
                              (data) => {
                                const outcome = data.get('outcome') as 'release_to_beneficiary' | 'refund_to_payer' | 'split' | 'dismissed';
                                const split = amountOf(data, 'split');
                                return sika.post('/api/v1/escrow/disputes/{id}/resolve', { params: { path: { id: d.id } }, body: { outcome, ...(outcome === 'split' && split !== undefined ? { splitReleaseMinor: split } : {}) } });
                              },
                            )}
                        </li>
                      ))}
                    </ul>
                  )}
                </QueryView>
                {c.status === 'funded' &&
                  form(
                    t('openDispute'),
                    <label>
                      {t('reason')}
                      <input name="reason" required maxLength={1000} />
                    </label>,
                    t('openDispute'),
                    (data) => sika.post('/api/v1/escrow/disputes/contract/{contractId}', { params: { path: { contractId: c.id } }, body: { reason: String(data.get('reason')) } }),
                  )}
              </section>

              {open && (
                <div className="actions">
                  <button type="button" className="secondary" onClick={() => window.confirm(t('confirmCancel')) && call.mutate(() => sika.post('/api/v1/escrow/contracts/{id}/cancel', { params: { path: { id: c.id } } }))}>
                    {t('cancelContract')}
                  </button>
                </div>
              )}
            </>
          );
        }}
      </QueryView>
    </main>
  );
}
