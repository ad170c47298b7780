import { useState } from 'react';
import { Link } from '../../shell/components.js';
import { useMessages, type Messages } from '../../shell/i18n.js';
import { sika } from '../../shell/session.js';
import { SendLinkForm, SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';

const messages: Messages<'forgotTitle' | 'forgotIntro' | 'resetTitle' | 'newPassword' | 'reset' | 'done' | 'signIn' | 'noToken'> = {
  en: {
    forgotTitle: 'Forgot your password?',
    forgotIntro: 'We e-mail you a link to choose a new one (valid 30 minutes).',
    resetTitle: 'Choose a new password',
    newPassword: 'New password (8 characters or more)',
    reset: 'Save the new password',
    done: 'Your password is changed, and every session of your account has ended.',
    signIn: 'Sign in with it',
    noToken: 'This page opens from the link in the e-mail.',
  },
  fr: {
    forgotTitle: 'Mot de passe oublié ?',
    forgotIntro: 'Nous vous envoyons un lien pour en choisir un nouveau (valable 30 minutes).',
    resetTitle: 'Choisissez un nouveau mot de passe',
    newPassword: 'Nouveau mot de passe (8 caractères ou plus)',
    reset: 'Enregistrer le mot de passe',
    done: 'Votre mot de passe est changé, et toutes les sessions de votre compte ont pris fin.',
    signIn: 'Se connecter avec',
    noToken: 'Cette page s’ouvre depuis le lien de l’e-mail.',
  },
};

/** Asks for a reset link; the answer is the same whether the address has an account or not. */
export function ForgotPassword() {
  const t = useMessages(messages);
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
  const t = useMessages(messages);
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
