import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, QueryView, Scrollable, useAction } from '../../shell/components.js';
import { decimalsOf, formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { fundingMessages } from './funding.messages.js';
import type { PageProps } from '../../shell/props.js';
import { fundingCampaignEditMessages } from './fundingCampaignEdit.messages.js';

interface Campaign {
  id: string;
  status: string;
  title: string;
  description?: string | null;
  currency: string;
  targetAmountMinor?: number | null;
  deadline?: string | null;
}

/** The local time of an ISO moment as a datetime-local input shows it. */
const localInput = (iso: string) => {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** A draft or active campaign's title and description (and, while a draft, its target and deadline). */
export function CampaignEdit({ campaign: c, changed, onSignedOut }: { campaign: Campaign; changed: unknown[]; onSignedOut: () => void }) {
  const t = useMessages({ en: { ...fundingMessages.en, ...fundingCampaignEditMessages.en }, fr: { ...fundingMessages.fr, ...fundingCampaignEditMessages.fr } });
  const [saved, setSaved] = useState(false);
  const { action: save, error } = useAction(onSignedOut, [changed]);
  const draft = c.status === 'draft';
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    setSaved(false);
    save.mutate(async () => {
      await sika.patch('/api/v1/funding/campaigns/{id}', {
        params: { path: { id: c.id } },
        body: {
          title: text('title'),
          description: text('description') || null,
          ...(draft ? { targetAmountMinor: text('target') ? minorUnits(Number(text('target')), c.currency) : null, deadline: text('deadline') ? new Date(text('deadline')).toISOString() : null } : {}),
        },
      });
      setSaved(true);
    });
  };
  return (
    <details className="panel">
      <summary>{t('edit')}</summary>
      <ErrorMessage text={error} />
      {saved && <p role="status">{t('saved')}</p>}
      <form className="inline-form" onSubmit={submit} aria-label={t('edit')}>
        <label>
          {t('campaignTitle')}
          <input name="title" defaultValue={c.title} required maxLength={256} />
        </label>
        <label className="wide">
          {t('description')}
          <textarea name="description" defaultValue={c.description ?? ''} maxLength={4000} rows={3} />
        </label>
        {draft && (
          <>
            <label>
              {t('target')} ({c.currency.toUpperCase()})
              <input name="target" type="number" min="0" step={10 ** -decimalsOf(c.currency)} defaultValue={c.targetAmountMinor ? c.targetAmountMinor / 10 ** decimalsOf(c.currency) : ''} />
            </label>
            <label>
              {t('deadline')}
              <input name="deadline" type="datetime-local" defaultValue={c.deadline ? localInput(c.deadline) : ''} />
            </label>
          </>
        )}
        <button type="submit" disabled={save.isPending}>
          {t('save')}
        </button>
      </form>
      {!draft && <p className="help">{t('editHelp')}</p>}
    </details>
  );
}

/** The campaign's ledger account (`campaign:<id>`): its balance and every entry, for finance and auditors. */
export function CampaignLedger({ campaignId, environment, onSignedOut }: { campaignId: string } & Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(fundingCampaignEditMessages);
  const { language } = useContext(LanguageContext);
  const ledger = useQuery({
    queryKey: ['funding-campaign', environment, campaignId, 'ledger'],
    queryFn: () => withSession(() => sika.get('/api/v1/funding/campaigns/{id}/ledger', { params: { path: { id: campaignId } } }), onSignedOut),
  });
  return (
    <section aria-labelledby="campaign-ledger">
      <h2 id="campaign-ledger">{t('ledger')}</h2>
      <p className="help">{t('ledgerHelp')}</p>
      <QueryView query={ledger}>
        {(l) => {
          const money = (minor: number | undefined) => formatAmount(language, minor ?? 0, l.currency ?? 'xof');
          return (
            <>
              <dl className="facts">
                <dt>{t('account')}</dt>
                <dd>
                  <code>{l.account}</code>
                </dd>
                <dt>{t('balance')}</dt>
                <dd>{money(l.balanceMinor)}</dd>
              </dl>
              {l.entries.length === 0 ? (
                <p>{t('entriesNone')}</p>
              ) : (
                <Scrollable labelledBy="campaign-ledger">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">{t('when')}</th>
                        <th scope="col">{t('entry')}</th>
                        <th scope="col">{t('source')}</th>
                        <th scope="col">{t('amount')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {l.entries.map((e) => (
                        <tr key={e.id}>
                          <th scope="row">{formatWhen(language, e.postedAt)}</th>
                          <td>{e.kind}</td>
                          <td>
                            <code>{e.source}</code>
                          </td>
                          <td className="amount">{money(e.amountMinor)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </Scrollable>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
