import { useState } from 'react';
import { useMessages, type Messages } from '../../shell/i18n.js';
import { pathOf } from '../../shell/router.js';
import { acceptInvitation, type FactorAsked, type SignedInUser } from '../../shell/session.js';
import { FactorForm, SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';

const messages: Messages<'title' | 'intro' | 'name' | 'password' | 'newcomer' | 'accept' | 'noToken' | 'failed'> = {
  en: {
    title: 'Join a team on Sika',
    intro: 'You were invited to join an organization on Sika.',
    name: 'Your name',
    password: 'Choose a password (8 characters or more)',
    newcomer: 'New to Sika? Give your name and a password for your account. Already have an account? Leave both empty.',
    accept: 'Accept the invitation',
    noToken: 'This link has no invitation in it: open the link of the e-mail again.',
    failed: 'The invitation could not be accepted',
  },
  fr: {
    title: 'Rejoindre une équipe sur Sika',
    intro: 'Vous avez été invité à rejoindre une organisation sur Sika.',
    name: 'Votre nom',
    password: 'Choisissez un mot de passe (8 caractères ou plus)',
    newcomer: 'Nouveau sur Sika ? Donnez votre nom et un mot de passe pour votre compte. Vous avez déjà un compte ? Laissez les deux vides.',
    accept: 'Accepter l’invitation',
    noToken: 'Ce lien ne contient pas d’invitation : ouvrez à nouveau le lien de l’e-mail.',
    failed: 'L’invitation n’a pas pu être acceptée',
  },
};

/**
 * The page of an invitation's e-mailed link (`/dashboard/invitation?token=…`), signed out: a
 * newcomer gives a name and a password, someone with an account nothing more; then the second
 * factor when the account has one, and the session starts in the inviting organization.
 */
export function AcceptInvitation({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useMessages(messages);
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token') ?? '');
  const [asked, setAsked] = useState<FactorAsked | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { submit, busy } = useSubmit((text) => setError(text && `${t('failed')}: ${text}`));

  const signedIn = (user: SignedInUser) => {
    // The token leaves the address: the application's home, in the organization just joined.
    window.history.replaceState(null, '', pathOf('home'));
    onSignedIn(user);
  };
  const accept = submit(async (form) => {
    const name = String(form.get('name')).trim();
    const password = String(form.get('password'));
    const answer = await acceptInvitation(token, password || null, name || null);
    if ('challengeId' in answer) setAsked(answer);
    else signedIn(answer);
  });

  return (
    <SignedOutPage title={t('title')} error={error} back={false}>
      {!token ? (
        <p role="alert">{t('noToken')}</p>
      ) : asked === null ? (
        <form onSubmit={accept} aria-label={t('accept')}>
          <p>{t('intro')}</p>
          <p id="newcomer-help" className="help">
            {t('newcomer')}
          </p>
          <label>
            {t('name')}
            <input name="name" autoComplete="name" maxLength={200} aria-describedby="newcomer-help" />
          </label>
          <label>
            {t('password')}
            <input name="password" type="password" autoComplete="new-password" minLength={8} aria-describedby="newcomer-help" />
          </label>
          <button type="submit" disabled={busy}>
            {t('accept')}
          </button>
        </form>
      ) : (
        <FactorForm asked={asked} busy={busy} submit={submit} onSignedIn={signedIn} />
      )}
    </SignedOutPage>
  );
}
