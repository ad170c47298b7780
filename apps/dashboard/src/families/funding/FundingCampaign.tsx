import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useMemo, useState, type FormEvent } from 'react';
import { Badge } from '../../shell/Badge.js';
import { CopyButton, ErrorMessage, errorText, isNotFound, Link, NotFound, QueryView, retryUnlessNotFound, saveAsFile, Scrollable } from '../../shell/components.js';
import { destinationLabel, useSavedDestinations } from '../../shell/destinations.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { MoneyChart, type DayOfMoney } from '../../shell/Chart.js';
import { sika, withSession } from '../../shell/session.js';
import { fundingMessages as messages } from './funding.messages.js';
import { DAY_MS, dayStartMs, daysBetween, utcDay } from '../../shell/days.js';
import { CampaignEdit, CampaignLedger } from './FundingCampaignEdit.js';
import type { PageProps } from '../../shell/props.js';

/** One campaign: its progress (and per day), publish/close/cancel, its public page, updates, contributions (refund, CSV), and payouts of its released funds. */
export function FundingCampaign({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const campaignId = id ?? '';
  const key = ['funding-campaign', environment, campaignId];
  const campaign = useQuery({
    queryKey: [...key, 'object'],
    queryFn: () => withSession(() => sika.get('/api/v1/funding/campaigns/{id}', { params: { path: { id: campaignId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const progress = useQuery({
    queryKey: [...key, 'progress'],
    queryFn: () => withSession(() => sika.get('/api/v1/funding/campaigns/{id}/progress', { params: { path: { id: campaignId } } }), onSignedOut),
    enabled: campaign.isSuccess,
  });
  const changed = {
    onSuccess: () => void queries.invalidateQueries({ queryKey: key }),
    onError: (err: unknown) => setError(errorText(err, t('error.generic'))),
  };
  const act = useMutation({
    mutationFn: (action: 'publish' | 'close' | 'cancel') => sika.post(`/api/v1/funding/campaigns/{id}/${action}`, { params: { path: { id: campaignId } } }),
    ...changed,
  });
  // Every day from the first contribution's (at least a week) to the last's: the API lists only days with one.
  const chartDays = useMemo<DayOfMoney[]>(() => {
    const timeline = progress.data?.timeline ?? [];
    if (timeline.length === 0) return [];
    const byDay = new Map(timeline.map((d) => [d.date, d.amountMinor ?? 0]));
    const last = timeline.at(-1)!.date!;
    const first = utcDay(Math.min(dayStartMs(timeline[0]!.date!), dayStartMs(last) - 6 * DAY_MS));
    return daysBetween(first, last).map((date) => ({ date, in: byDay.get(date) ?? 0, out: 0 }));
  }, [progress.data]);

  if (campaign.isError && isNotFound(campaign.error)) return <NotFound title={t('title')} message={t('notFound')} back="funding" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="funding">{t('back')}</Link>
      </p>
      <QueryView query={campaign}>
        {(c) => {
          const money = (minor: number | null | undefined) => formatAmount(language, minor ?? 0, c.currency);
          const publicUrl = `${window.location.origin}/funding/${c.slug}`;
          return (
            <>
              <h1>{c.title}</h1>
              <ErrorMessage text={error} />
              <dl className="facts">
                <dt>{t('status')}</dt>
                <dd>
                  <Badge status={c.status}>{t(`status.${c.status}`)}</Badge>
                </dd>
                <dt>{t('raised')}</dt>
                <dd>{c.targetAmountMinor ? t('raisedOf', { raised: money(c.raisedAmountMinor), target: money(c.targetAmountMinor) }) : money(c.raisedAmountMinor)}</dd>
                <dt>{t('contributors')}</dt>
                <dd>{c.contributorCount}</dd>
                <dt>{t('model')}</dt>
                <dd>{t(`model.${c.fundingModel}`)}</dd>
                {c.deadline && (
                  <>
                    <dt>{t('deadline')}</dt>
                    <dd>{formatWhen(language, c.deadline)}</dd>
                  </>
                )}
                <dt>{t('held')}</dt>
                <dd>{money(c.heldAmountMinor)}</dd>
                <dt>{t('released')}</dt>
                <dd>{money(c.releasedAmountMinor)}</dd>
                <dt>{t('releasedFee')}</dt>
                <dd>{money(c.releasedFeeMinor)}</dd>
                <dt>{t('paidOut')}</dt>
                <dd>{money(c.paidOutAmountMinor)}</dd>
                <dt>{t('refunded')}</dt>
                <dd>{money(c.refundedAmountMinor)}</dd>
              </dl>
              {c.targetAmountMinor ? (
                <label>
                  {t('progress')}
                  <progress max={c.targetAmountMinor} value={Math.min(c.raisedAmountMinor, c.targetAmountMinor)}>
                    {Math.round(c.percentFunded ?? 0)}%
                  </progress>
                </label>
              ) : null}
              {c.status !== 'draft' && (
                <p>
                  {t('publicPage')}:{' '}
                  <a href={publicUrl} target="_blank" rel="noreferrer">
                    {publicUrl}
                  </a>{' '}
                  <CopyButton text={publicUrl} />
                </p>
              )}
              <div className="actions">
                {c.status === 'draft' && (
                  <button type="button" disabled={act.isPending} onClick={() => act.mutate('publish')}>
                    {t('publish')}
                  </button>
                )}
                {c.status === 'active' && (
                  <button type="button" disabled={act.isPending} onClick={() => window.confirm(t('confirmClose')) && act.mutate('close')}>
                    {t('close')}
                  </button>
                )}
                {(c.status === 'draft' || c.status === 'active') && (
                  <button type="button" className="secondary" disabled={act.isPending} onClick={() => window.confirm(t('confirmCancel')) && act.mutate('cancel')}>
                    {t('cancel')}
                  </button>
                )}
              </div>
              {chartDays.length > 0 && <MoneyChart days={chartDays} currency={c.currency} seriesNames={{ day: t('chart.day'), in: t('chart.in'), out: t('chart.out') }} label={t('chart.label', { raised: money(c.raisedAmountMinor) })} />}
              {(c.status === 'draft' || c.status === 'active') && <CampaignEdit campaign={c} changed={key} onSignedOut={onSignedOut} />}
              <Updates campaignId={c.id} environment={environment} onSignedOut={onSignedOut} />
              <Contributions campaignId={c.id} currency={c.currency} environment={environment} onSignedOut={onSignedOut} />
              {(c.status === 'closed' || (c.paidOutAmountMinor ?? 0) > 0) && <Payouts campaignId={c.id} currency={c.currency} environment={environment} onSignedOut={onSignedOut} />}
              <CampaignLedger campaignId={c.id} environment={environment} onSignedOut={onSignedOut} />
            </>
          );
        }}
      </QueryView>
    </main>
  );
}

interface Part extends PageProps {
  campaignId: string;
}

function Updates({ campaignId, environment, onSignedOut }: Part) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const key = ['funding-campaign', environment, campaignId, 'updates'];
  const updates = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => sika.get('/api/v1/funding/campaigns/{id}/updates', { params: { path: { id: campaignId } } }), onSignedOut),
  });
  const changed = { onSuccess: () => void queries.invalidateQueries({ queryKey: key }), onError: (err: unknown) => setError(errorText(err, t('error.generic'))) };
  const post = useMutation({
    mutationFn: (form: FormData) => sika.post('/api/v1/funding/campaigns/{id}/updates', { params: { path: { id: campaignId } }, body: { title: String(form.get('title')), body: String(form.get('body')) } }),
    ...changed,
  });
  const remove = useMutation({
    mutationFn: (updateId: string) => sika.delete('/api/v1/funding/campaigns/{id}/updates/{updateId}', { params: { path: { id: campaignId, updateId } } }),
    ...changed,
  });
  return (
    <section aria-labelledby="updates">
      <h2 id="updates">{t('updates')}</h2>
      <ErrorMessage text={error} />
      <form
        aria-label={t('post')}
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          setError(null);
          const form = e.currentTarget;
          post.mutate(new FormData(form), { onSuccess: () => form.reset() });
        }}
      >
        <label>
          {t('updateTitle')}
          <input name="title" required maxLength={256} />
        </label>
        <label>
          {t('updateBody')}
          <textarea name="body" required maxLength={10000} rows={3} />
        </label>
        <button type="submit" disabled={post.isPending}>
          {t('post')}
        </button>
      </form>
      <QueryView query={updates} isEmpty={(u) => !u.data?.length} empty={t('updates.none')}>
        {(u) => (
          <ul className="updates">
            {(u.data ?? []).map((update) => (
              <li key={update.id}>
                <h3>{update.title}</h3>
                <p className="muted">{formatWhen(language, update.createdAt)}</p>
                <p>{update.body}</p>
                <button type="button" className="secondary" aria-label={`${t('delete')}: ${update.title}`} onClick={() => remove.mutate(update.id)}>
                  {t('delete')}
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function Contributions({ campaignId, currency, environment, onSignedOut }: Part & { currency: string }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const contributions = useQuery({
    queryKey: ['funding-campaign', environment, campaignId, 'contributions'],
    queryFn: () => withSession(() => sika.get('/api/v1/funding/campaigns/{id}/contributions', { params: { path: { id: campaignId }, query: { limit: 100 } } }), onSignedOut),
  });
  const refund = useMutation({
    mutationFn: (contributionId: string) => sika.post('/api/v1/funding/contributions/{id}/refund', { params: { path: { id: contributionId } } }),
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['funding-campaign', environment, campaignId] }),
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  const exportCsv = async () => {
    setError(null);
    try {
      const csv = await withSession(() => sika.get('/api/v1/funding/campaigns/{id}/contributions/export', { params: { path: { id: campaignId } }, parseAs: 'text' }), onSignedOut);
      saveAsFile(csv as unknown as string, `contributions-${campaignId}.csv`);
    } catch (err) {
      setError(errorText(err, t('error.generic')));
    }
  };
  return (
    <section aria-labelledby="contributions">
      <h2 id="contributions">{t('contributions')}</h2>
      <ErrorMessage text={error} />
      <button type="button" className="secondary" onClick={() => void exportCsv()}>
        {t('exportCsv')}
      </button>
      <QueryView query={contributions} isEmpty={(c) => !c.data?.length} empty={t('contributions.none')}>
        {(list) => (
          <Scrollable labelledBy="contributions">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('contributor')}</th>
                  <th scope="col">{t('amount')}</th>
                  <th scope="col">{t('status')}</th>
                  <th scope="col">{t('when')}</th>
                  <th scope="col">{t('refund')}</th>
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((c) => {
                  const who = c.anonymous ? t('anonymous') : (c.contributorName ?? c.contributorEmail ?? c.id);
                  return (
                    <tr key={c.id}>
                      <th scope="row">{who}</th>
                      <td className="amount">{formatAmount(language, c.amountMinor, currency)}</td>
                      <td>
                        <Badge status={c.status}>{t(`contribution.${c.status}`)}</Badge>
                      </td>
                      <td>{formatWhen(language, c.created)}</td>
                      <td>
                        {c.status === 'succeeded' && (
                          <button type="button" className="secondary" aria-label={`${t('refund')}: ${who} ${formatAmount(language, c.amountMinor, currency)}`} disabled={refund.isPending} onClick={() => refund.mutate(c.id)}>
                            {t('refund')}
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}

function Payouts({ campaignId, currency, environment, onSignedOut }: Part & { currency: string }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const payouts = useQuery({
    queryKey: ['funding-campaign', environment, campaignId, 'payouts'],
    queryFn: () => withSession(() => sika.get('/api/v1/funding/campaigns/{id}/payouts', { params: { path: { id: campaignId } } }), onSignedOut),
  });
  const destinations = useSavedDestinations(environment, onSignedOut);
  const payOut = useMutation({
    mutationFn: (payoutMethodId: string) => sika.post('/api/v1/funding/campaigns/{id}/payouts', { params: { path: { id: campaignId } }, body: { payoutMethodId }, headers: { 'Idempotency-Key': idempotencyKey } }),
    onSuccess: () => {
      setIdempotencyKey(crypto.randomUUID());
      void queries.invalidateQueries({ queryKey: ['funding-campaign', environment, campaignId] });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  return (
    <section aria-labelledby="campaign-payouts">
      <h2 id="campaign-payouts">{t('payouts')}</h2>
      <ErrorMessage text={error} />
      {destinations.length === 0 ? (
        <p>{t('noDestination')}</p>
      ) : (
        <form
          className="inline-form"
          aria-label={t('payoutAll')}
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            setError(null);
            payOut.mutate(String(new FormData(e.currentTarget).get('destination')));
          }}
        >
          <label>
            {t('payoutTo')}
            <select name="destination">
              {destinations.map((d) => (
                <option key={d.id} value={d.id}>
                  {destinationLabel(d)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={payOut.isPending}>
            {t('payOut')}
          </button>
        </form>
      )}
      <QueryView query={payouts} isEmpty={(p) => !p.data?.length} empty={t('payouts.none')}>
        {(list) => (
          <Scrollable labelledBy="campaign-payouts">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('when')}</th>
                  <th scope="col">{t('amount')}</th>
                  <th scope="col">{t('payoutFee')}</th>
                  <th scope="col">{t('status')}</th>
                </tr>
              </thead>
              <tbody>
                {((list.data ?? []) as { id: string; payoutId: string; amountMinor: number; feeMinor: number; status: string; createdAt: string }[]).map((p) => (
                  <tr key={p.id}>
                    <th scope="row">{formatWhen(language, p.createdAt)}</th>
                    <td className="amount">
                      <Link to="payout" id={p.payoutId}>
                        {formatAmount(language, p.amountMinor, currency)}
                      </Link>
                    </td>
                    <td className="amount">{formatAmount(language, p.feeMinor, currency)}</td>
                    <td>
                      <Badge status={p.status}>{t(`payout.${p.status as 'requested' | 'created' | 'failed'}`)}</Badge>
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
