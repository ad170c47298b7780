import { useEffect, useState } from 'react';
import { ErrorMessage, Link, useFailureText } from '../../shell/components.js';
import { useT } from '../../shell/i18n.js';
import { googleOutcome, type FactorAsked, type SignedInUser } from '../../shell/session.js';
import { FactorForm, SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';
import type { PageProps } from '../../shell/props.js';

/** Back from Google, signed out: signed in, the second factor asked first, or the refusal in the API's words. */
export function GoogleSignInReturn({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useT();
  const failureText = useFailureText();
  const [asked, setAsked] = useState<FactorAsked | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { submit, busy } = useSubmit(setError);
  useEffect(() => {
    googleOutcome().then(
      (outcome) => {
        if (outcome === null) setError(t('google.notFromGoogle'));
        else if ('connected' in outcome) setSaid(t('google.connected').replace('{email}', outcome.email));
        else if ('challengeId' in outcome) setAsked(outcome);
        else onSignedIn(outcome);
      },
      (err: unknown) => setError(failureText(err)),
    );
    // Once per page load (googleOutcome remembers its answer, so a second run changes nothing).
  }, []);
  return (
    <SignedOutPage title={t('google.title')} error={error}>
      {asked ? <FactorForm asked={asked} busy={busy} submit={submit} onSignedIn={onSignedIn} /> : said ? <p role="status">{said}</p> : !error && <p aria-busy="true">{t('loading')}</p>}
    </SignedOutPage>
  );
}

/** Back from Google, signed in: the Google account connected to the user (or the refusal), then back to Settings. */
export function GoogleConnectReturn(_: PageProps) {
  const t = useT();
  const failureText = useFailureText();
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    googleOutcome().then(
      (outcome) => (outcome !== null && 'connected' in outcome ? setSaid(t('google.connected').replace('{email}', outcome.email)) : setError(t('google.notFromGoogle'))),
      (err: unknown) => setError(failureText(err)),
    );
  }, []);
  return (
    <main className="page">
      <h1>{t('google.title')}</h1>
      <ErrorMessage text={error} />
      {said ? <p role="status">{said}</p> : !error && <p aria-busy="true">{t('loading')}</p>}
      <p>
        <Link to="settingsSection" id="security">
          {t('google.toSettings')}
        </Link>
      </p>
    </main>
  );
}
