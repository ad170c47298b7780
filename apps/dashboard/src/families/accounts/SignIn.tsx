import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from '../../shell/components.js';
import { useT } from '../../shell/i18n.js';
import { sika, signIn, signInWithGoogle, signInWithPasskey, type FactorAsked, type SignedInUser } from '../../shell/session.js';
import { FactorForm, SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';

/** Password, then the second factor when the account has one (docs/accounts.md, "The factor rule"); the ways in without a password. */
export function SignIn({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useT();
  const [asked, setAsked] = useState<FactorAsked | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { submit, busy } = useSubmit((text) => setError(text && `${t('signIn.failed')}: ${text}`));

  // Google is offered only where the service has it configured.
  const google = useQuery({ queryKey: ['google-availability'], queryFn: () => sika.get('/api/v1/auth/google/availability'), retry: false });

  const withPassword = submit(async (form) => {
    const answer = await signIn(String(form.get('email')), String(form.get('password')));
    if ('challengeId' in answer) setAsked(answer);
    else onSignedIn(answer);
  });

  return (
    <SignedOutPage title={t('signIn.title')} error={error} back={false}>
      {asked === null ? (
        <>
          <form onSubmit={withPassword}>
            <label>
              {t('signIn.email')}
              <input name="email" type="email" autoComplete="username" required />
            </label>
            <label>
              {t('signIn.password')}
              <input name="password" type="password" autoComplete="current-password" required minLength={8} />
            </label>
            <button type="submit" disabled={busy}>
              {t('signIn.submit')}
            </button>
          </form>
          <form onSubmit={submit(async () => onSignedIn(await signInWithPasskey()))} aria-label={t('passkey.signIn')}>
            <button type="submit" className="secondary" disabled={busy}>
              {t('passkey.signIn')}
            </button>
          </form>
          {google.data?.available && (
            <form onSubmit={submit(signInWithGoogle)} aria-label={t('google.signIn')}>
              <button type="submit" className="secondary" disabled={busy}>
                {t('google.signIn')}
              </button>
            </form>
          )}
          <ul className="links">
            <li>
              <Link to="magicLink">{t('signIn.toMagicLink')}</Link>
            </li>
            <li>
              <Link to="forgotPassword">{t('signIn.toForgot')}</Link>
            </li>
            <li>
              <Link to="signUp">{t('signIn.toSignUp')}</Link>
            </li>
          </ul>
        </>
      ) : (
        <FactorForm asked={asked} busy={busy} submit={submit} onSignedIn={onSignedIn} />
      )}
    </SignedOutPage>
  );
}
