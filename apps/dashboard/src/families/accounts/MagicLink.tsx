import { useEffect, useRef, useState } from 'react';
import { useMessages } from '../../shell/i18n.js';
import { sika, signInWithLink, type FactorAsked, type SignedInUser } from '../../shell/session.js';
import { FactorForm, SendLinkForm, SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';
import { magicLinkMessages } from './magicLink.messages.js';

/** Asks for a sign-in link; opened from the link (`?token=`), signs in, asking the second factor first when the account has one. */
export function MagicLink({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useMessages(magicLinkMessages);
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token'));
  const [error, setError] = useState<string | null>(null);
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

  return (
    <SignedOutPage title={t('title')} error={error}>
      {asked ? (
        <FactorForm asked={asked} busy={busy} submit={submit} onSignedIn={signedIn} />
      ) : token && !error ? (
        <p aria-busy="true">{t('checking')}</p>
      ) : (
        <>
          <p>{t('intro')}</p>
          <SendLinkForm request={(email) => sika.post('/api/v1/auth/magic-link', { body: { email } })} submit={submit} busy={busy} />
        </>
      )}
    </SignedOutPage>
  );
}
