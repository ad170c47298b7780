import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, Link, NavigationContext, QueryView, Scrollable, FilterSelect } from '../../shell/components.js';
import { formatAmount, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { fundingMessages as messages } from './funding.messages.js';
import { CountrySelect, useCountry } from '../../shell/countries.js';
import type { PageProps } from '../../shell/props.js';

const STATUSES = ['draft', 'active', 'closed', 'canceled', 'failed'] as const;
type Status = (typeof STATUSES)[number];

/** Funding campaigns of the environment shown: a new one (a draft), and the list with each one's progress. */
export function Funding({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const go = useContext(NavigationContext);
  const queries = useQueryClient();
  const [status, setStatus] = useState<Status | ''>('');
  const [country, setCountry] = useState('SN');
  const [error, setError] = useState<string | null>(null);
  const { countries, chosen } = useCountry('payin', country, onSignedOut);
  const currency = chosen?.currency ?? 'xof';
  const campaigns = useQuery({
    queryKey: ['funding-campaigns', environment, status],
    queryFn: () => withSession(() => sika.get('/api/v1/funding/campaigns', { params: { query: { limit: 50, ...(status ? { status } : {}) } } }), onSignedOut),
  });
  const create = useMutation({
    mutationFn: (form: FormData) => {
      const text = (name: string) => String(form.get(name) ?? '').trim();
      return sika.post('/api/v1/funding/campaigns', {
        body: {
          title: text('title'),
          currency,
          country,
          fundingModel: text('model') === 'all_or_nothing' ? 'all_or_nothing' : 'keep_what_you_raise',
          ...(text('description') ? { description: text('description') } : {}),
          ...(text('target') ? { targetAmountMinor: minorUnits(Number(text('target')), currency) } : {}),
          ...(text('deadline') ? { deadline: new Date(text('deadline')).toISOString() } : {}),
        },
      });
    },
    onSuccess: (campaign) => {
      void queries.invalidateQueries({ queryKey: ['funding-campaigns', environment] });
      go('fundingCampaign', campaign.id);
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <section aria-labelledby="new-campaign">
        <h2 id="new-campaign">{t('new')}</h2>
        <ErrorMessage text={error} />
        <form
          className="inline-form"
          aria-label={t('new')}
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            setError(null);
            create.mutate(new FormData(e.currentTarget));
          }}
        >
          <label>
            {t('campaignTitle')}
            <input name="title" required maxLength={256} />
          </label>
          <label>
            {t('description')}
            <textarea name="description" maxLength={4000} rows={2} />
          </label>
          <CountrySelect label={t('country')} countries={countries} value={country} onChange={setCountry} />
          <label>
            {t('target')} ({currency.toUpperCase()})
            <input name="target" type="number" min="0" step="any" />
          </label>
          <label>
            {t('deadline')}
            <input name="deadline" type="datetime-local" />
          </label>
          <label>
            {t('model')}
            <select name="model" defaultValue="keep_what_you_raise">
              <option value="keep_what_you_raise">{t('model.keep_what_you_raise')}</option>
              <option value="all_or_nothing">{t('model.all_or_nothing')}</option>
            </select>
          </label>
          <button type="submit" disabled={create.isPending}>
            {t('create')}
          </button>
        </form>
      </section>

      <section aria-labelledby="campaigns">
        <h2 id="campaigns">{t('list')}</h2>
        <FilterSelect label={t('status')} value={status} values={STATUSES} any={t('status.all')} words={(s) => t(`status.${s}`)} onChange={setStatus} />
        <QueryView query={campaigns} isEmpty={(c) => !c.data?.length} empty={t('none')}>
          {(list) => (
            <Scrollable labelledBy="campaigns">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('campaignTitle')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('raised')}</th>
                    <th scope="col">{t('contributors')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(list.data ?? []).map((c) => (
                    <tr key={c.id}>
                      <th scope="row">
                        <Link to="fundingCampaign" id={c.id}>
                          {c.title}
                        </Link>
                      </th>
                      <td>
                        <Badge status={c.status}>{t(`status.${c.status}`)}</Badge>
                      </td>
                      <td className="amount">
                        {c.targetAmountMinor
                          ? t('raisedOf', { raised: formatAmount(language, c.raisedAmountMinor, c.currency), target: formatAmount(language, c.targetAmountMinor, c.currency) })
                          : formatAmount(language, c.raisedAmountMinor, c.currency)}
                      </td>
                      <td>{c.contributorCount}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>
    </main>
  );
}
