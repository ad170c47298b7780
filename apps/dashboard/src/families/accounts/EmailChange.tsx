import { useEffect, useRef, useState } from 'react';
import { errorText } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika } from '../../shell/session.js';
import { emailChangeMessages } from './emailChange.messages.js';

/** The link sent to a new address (Settings, "E-mail address and phone number"): opening it moves the account there, signed in or not. */
export function EmailChange() {
  const t = useMessages(emailChangeMessages);
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token'));
  const [outcome, setOutcome] = useState<{ email: string } | { error: string } | null>(null);
  const used = useRef(false);
  useEffect(() => {
    // The link works once: React's second run of effects in development must not spend it twice.
    if (!token || used.current) return;
    used.current = true;
    window.history.replaceState(null, '', window.location.pathname);
    sika.post('/api/v1/auth/email-change/confirm', { body: { token } }).then(
      (moved) => setOutcome({ email: moved.email ?? '' }),
      (err: unknown) => setOutcome({ error: errorText(err, t('failed')) }),
    );
  }, [token, t]);
  return (
    <main className="page">
      <h1>{t('title')}</h1>
      {!token ? (
        <p>{t('noToken')}</p>
      ) : outcome === null ? (
        <p aria-busy="true">{t('checking')}</p>
      ) : 'error' in outcome ? (
        <p className="error" role="alert">
          {t('failed')}: {outcome.error}
        </p>
      ) : (
        <p role="status">{t('done', { email: outcome.email })}</p>
      )}
    </main>
  );
}
