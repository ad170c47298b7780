import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CopyButton, ErrorMessage, QueryView, useAction } from '../../shell/components.js';
import { useMessages, type Messages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';

const messages: Messages<'title' | 'intro' | 'copy' | 'form' | 'subscriptionCancel' | 'customerUpdate' | 'returnUrl' | 'returnUrlHelp' | 'save' | 'saved'> = {
  en: {
    title: 'Customer portal',
    intro: 'Your customers sign in with their e-mail address to see their invoices, subscriptions and payments. Give them this link:',
    copy: 'Copy the portal’s link',
    form: 'What customers may do in the portal',
    subscriptionCancel: 'Cancel their subscriptions (at the end of the period)',
    customerUpdate: 'Change their name and phone number',
    returnUrl: 'Your site (optional)',
    returnUrlHelp: 'The portal links back to it. An address starting with https:// or http://.',
    save: 'Save the portal settings',
    saved: 'Customer portal settings saved.',
  },
  fr: {
    title: 'Espace client',
    intro: 'Vos clients s’y connectent avec leur adresse e-mail pour voir leurs factures, abonnements et paiements. Donnez-leur ce lien :',
    copy: 'Copier le lien de l’espace client',
    form: 'Ce que les clients peuvent faire dans l’espace client',
    subscriptionCancel: 'Résilier leurs abonnements (à la fin de la période)',
    customerUpdate: 'Modifier leur nom et leur numéro de téléphone',
    returnUrl: 'Votre site (facultatif)',
    returnUrlHelp: 'L’espace client y renvoie. Une adresse commençant par https:// ou http://.',
    save: 'Enregistrer les paramètres de l’espace client',
    saved: 'Paramètres de l’espace client enregistrés.',
  },
};

/** The customer portal of the environment shown: its link to give customers (copied), and what they may do there. */
export function CustomerPortalSettings({ environment, onSignedOut }: Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(messages);
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
