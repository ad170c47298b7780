import { useState } from 'react';
import { useMessages } from '../../shell/i18n.js';
import { pathOf } from '../../shell/router.js';
import { acceptInvitation, type FactorAsked, type SignedInUser } from '../../shell/session.js';
import { FactorForm, SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';
import { acceptInvitationMessages } from './acceptInvitation.messages.js';

/**
 * The page of an invitation's e-mailed link (`/dashboard/invitation?token=…`), signed out: a
 * newcomer gives a name and a password, someone with an account nothing more; then the second
 * factor when the account has one, and the session starts in the inviting organization.
 */
export function AcceptInvitation({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useMessages(acceptInvitationMessages);
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
