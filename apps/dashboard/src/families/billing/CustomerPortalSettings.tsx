import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CopyButton, ErrorMessage, QueryView, useAction } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { customerPortalSettingsMessages } from './customerPortalSettings.messages.js';

/** The customer portal of the environment shown: its link to give customers (copied), and what they may do there. */
export function CustomerPortalSettings({ environment, onSignedOut }: Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(customerPortalSettingsMessages);
  const queries = useQueryClient();
  const key = ['customer-portal-settings', environment];
  const [saved, setSaved] = useState(false);
  const settings = useQuery({ queryKey: key, queryFn: () => withSession(() => sika.get('/api/v1/merchant/settings/customer-portal'), onSignedOut) });
  const { action, error } = useAction(onSignedOut, [key]);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSaved(false);
    const form = new FormData(e.currentTarget);
    const returnUrl = String(form.get('returnUrl') ?? '').trim();
    const body = { subscription_cancel: form.get('subscriptionCancel') === 'on', customer_update: form.get('customerUpdate') === 'on', return_url: returnUrl || null };
    action.mutate(() => sika.patch('/api/v1/merchant/settings/customer-portal', { body }), {
      onSuccess: (answer) => {
        queries.setQueryData(key, answer);
        setSaved(true);
      },
    });
  };
  return (
    <section aria-labelledby="customer-portal">
      <h2 id="customer-portal">{t('title')}</h2>
      <QueryView query={settings}>
        {(s) => (
          <>
            <p>{t('intro')}</p>
            <p className="actions">
              <a href={s.url} target="_blank" rel="noreferrer">
                {s.url}
              </a>
              <CopyButton text={s.url} label={t('copy')} />
            </p>
            <ErrorMessage text={error} />
            {saved && <p role="status">{t('saved')}</p>}
            {/* Keyed by what the API holds, so the form shows it again after a save or in the other environment. */}
            <form className="inline-form" aria-label={t('form')} onSubmit={submit} key={`${environment}-${s.updated ?? 'default'}`}>
              <fieldset>
                <legend>{t('form')}</legend>
                <label className="inline">
                  <input name="subscriptionCancel" type="checkbox" defaultChecked={s.subscription_cancel} /> {t('subscriptionCancel')}
                </label>
                <label className="inline">
                  <input name="customerUpdate" type="checkbox" defaultChecked={s.customer_update} /> {t('customerUpdate')}
                </label>
              </fieldset>
              <label>
                {t('returnUrl')}
                <input name="returnUrl" type="url" maxLength={2048} defaultValue={s.return_url ?? ''} aria-describedby="portal-return-help" />
                <small id="portal-return-help">{t('returnUrlHelp')}</small>
              </label>
              <button type="submit" disabled={action.isPending}>
                {t('save')}
              </button>
            </form>
          </>
        )}
      </QueryView>
    </section>
  );
}
