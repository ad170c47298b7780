import { useState } from 'react';
import { Link } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika } from '../../shell/session.js';
import { SendLinkForm, SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';
import { passwordResetMessages } from './passwordReset.messages.js';

/** Asks for a reset link; the answer is the same whether the address has an account or not. */
export function ForgotPassword() {
  const t = useMessages(passwordResetMessages);
  const [error, setError] = useState<string | null>(null);
  const { submit, busy } = useSubmit(setError);
  return (
    <SignedOutPage title={t('forgotTitle')} error={error}>
      <p>{t('forgotIntro')}</p>
      <SendLinkForm request={(email) => sika.post('/api/v1/auth/forgot-password', { body: { email } })} submit={submit} busy={busy} />
    </SignedOutPage>
  );
}

/** The reset link's page: a new password for the token in the address (once, within 30 minutes). */
export function ResetPassword() {
  const t = useMessages(passwordResetMessages);
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token') ?? '');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const { submit, busy } = useSubmit(setError);
  const reset = submit(async (form) => {
    await sika.post('/api/v1/auth/reset-password', { body: { token, newPassword: String(form.get('password')) } });
    // The token is spent: keep it out of the address bar and the history.
    window.history.replaceState(null, '', window.location.pathname);
    setDone(true);
  });
  return (
    <SignedOutPage title={t('resetTitle')} error={error} back={!done}>
      {done ? (
        <p role="status">
          {t('done')} <Link to="home">{t('signIn')}</Link>
        </p>
      ) : token === '' ? (
        <p>{t('noToken')}</p>
      ) : (
        <form onSubmit={reset} aria-label={t('reset')}>
          <label>
            {t('newPassword')}
            <input name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={256} />
          </label>
          <button type="submit" disabled={busy}>
            {t('reset')}
          </button>
        </form>
      )}
    </SignedOutPage>
  );
}
