import { useState } from 'react';
import { AnyCountrySelect } from '../../shell/countries.js';
import { useMessages } from '../../shell/i18n.js';
import { register, sika, type SignedInUser } from '../../shell/session.js';
import { SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';
import { signUpMessages } from './signUp.messages.js';

/** Sign-up (docs/accounts.md): the address proved by an e-mailed code, then the account, its merchant and organization, signed in. */
export function SignUp({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useMessages(signUpMessages);
  const [error, setError] = useState<string | null>(null);
  const [challenge, setChallenge] = useState<{ id: string; email: string; verified: boolean } | null>(null);
  const { submit, busy } = useSubmit(setError);

  const sendCode = submit(async (form) => {
    const email = String(form.get('email')).trim();
    const asked = await sika.post('/api/v1/auth/pre-signup/email/challenge', { body: { email } });
    setChallenge({ id: asked.challengeId!, email, verified: false });
  });
  const verify = submit(async (form) => {
    await sika.post('/api/v1/auth/pre-signup/email/verify', { body: { challengeId: challenge!.id, code: String(form.get('code')).trim() } });
    setChallenge({ ...challenge!, verified: true });
  });
  const create = submit(async (form) => {
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const user = await register({ email: challenge!.email, emailChallengeId: challenge!.id, name: text('name'), merchantName: text('business'), country: text('country').toUpperCase(), password: String(form.get('password')) });
    window.history.replaceState(null, '', '/dashboard/');
    onSignedIn(user);
  });

  return (
    <SignedOutPage title={t('title')} error={error}>
      <p>{t('intro')}</p>
      {challenge === null ? (
        // Each step's form has its own key: React would otherwise keep the input of one step for the
        // next one at its place, and the six-digit code would stay in "Your name".
        <form key="email" onSubmit={sendCode} aria-label={t('sendCode')}>
          <label>
            {t('email')}
            <input name="email" type="email" autoComplete="email" required maxLength={254} />
          </label>
          <button type="submit" disabled={busy}>
            {t('sendCode')}
          </button>
        </form>
      ) : !challenge.verified ? (
        <form key="code" onSubmit={verify} aria-label={t('verify')}>
          <p role="status">{t('codeSent', { email: challenge.email })}</p>
          <label>
            {t('code')}
            <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required autoFocus />
          </label>
          <button type="submit" disabled={busy}>
            {t('verify')}
          </button>
        </form>
      ) : (
        <form key="account" onSubmit={create} aria-label={t('create')}>
          <p role="status">{t('verified', { email: challenge.email })}</p>
          <label>
            {t('name')}
            <input name="name" autoComplete="name" required maxLength={200} />
          </label>
          <label>
            {t('business')}
            <input name="business" autoComplete="organization" required maxLength={128} />
          </label>
          <AnyCountrySelect label={t('country')} name="country" defaultValue="SN" describedBy="sign-up-country-help" />
          <p id="sign-up-country-help" className="help">
            {t('countryHelp')}
          </p>
          <label>
            {t('password')}
            <input name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={256} />
          </label>
          <button type="submit" disabled={busy}>
            {t('create')}
          </button>
        </form>
      )}
    </SignedOutPage>
  );
}
