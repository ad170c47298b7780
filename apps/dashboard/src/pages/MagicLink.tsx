import { useEffect, useRef, useState } from 'react';
import { useMessages, type Messages } from '../i18n.js';
import { sika, signInWithLink, type FactorAsked, type SignedInUser } from '../session.js';
import { FactorForm, SignedOutPage, useSubmit } from '../signedOut.js';

const messages: Messages<'title' | 'intro' | 'email' | 'send' | 'sent' | 'checking'> = {
  en: {
    title: 'Sign in with a link',
    intro: 'We e-mail you a link that signs you in (valid 15 minutes, once).',
    email: 'Your e-mail address',
    send: 'Send the link',
    sent: 'If {email} has an account, the link is on its way.',
    checking: 'Signing you in…',
  },
  fr: {
    title: 'Se connecter par un lien',
    intro: 'Nous vous envoyons un lien qui vous connecte (valable 15 minutes, une fois).',
    email: 'Votre adresse e-mail',
    send: 'Envoyer le lien',
    sent: 'Si {email} a un compte, le lien y est envoyé.',
    checking: 'Connexion en cours…',
  },
};

/** Asks for a sign-in link; opened from the link (`?token=`), signs in, asking the second factor first when the account has one. */
export function MagicLink({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useMessages(messages);
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token'));
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [asked, setAsked] = useState<FactorAsked | null>(null);
  const { submit, busy } = useSubmit(setError);
  const used = useRef(false);
  const signedIn = (user: SignedInUser) => {
    window.history.replaceState(null, '', '/dashboard/');
    onSignedIn(user);
  };

  useEffect(() => {
    // The link works once: React's second run of effects in development must not spend it twice.
    if (!token || used.current) return;
    used.current = true;
    window.history.replaceState(null, '', window.location.pathname);
    signInWithLink(token).then(
      (answer) => ('challengeId' in answer ? setAsked(answer) : signedIn(answer)),
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  }, [token]);

  const send = submit(async (form) => {
    const email = String(form.get('email')).trim();
    await sika.post('/api/v1/auth/magic-link', { body: { email } });
    setSent(email);
  });

  return (
    <SignedOutPage title={t('title')} error={error}>
      {asked ? (
        <FactorForm asked={asked} busy={busy} submit={submit} onSignedIn={signedIn} />
      ) : token && !error ? (
        <p aria-busy="true">{t('checking')}</p>
      ) : sent ? (
        <p role="status">{t('sent', { email: sent })}</p>
      ) : (
        <>
          <p>{t('intro')}</p>
          <form onSubmit={send} aria-label={t('send')}>
            <label>
              {t('email')}
              <input name="email" type="email" autoComplete="email" required maxLength={254} />
            </label>
            <button type="submit" disabled={busy}>
              {t('send')}
            </button>
          </form>
        </>
      )}
    </SignedOutPage>
  );
}
