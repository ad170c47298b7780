import { useState } from 'react';
import { AnyCountrySelect } from '../../shell/countries.js';
import { useMessages, type Messages } from '../../shell/i18n.js';
import { register, sika, type SignedInUser } from '../../shell/session.js';
import { SignedOutPage } from './signedOut.js';
import { useSubmit } from '../../shell/signedOutCard.js';

const messages: Messages<'title' | 'intro' | 'countryHelp' | 'email' | 'sendCode' | 'codeSent' | 'code' | 'verify' | 'name' | 'business' | 'country' | 'password' | 'create' | 'verified'> = {
  en: {
    title: 'Create your account',
    intro: 'First we check your e-mail address with a code, then you name your business.',
    email: 'Your e-mail address',
    sendCode: 'Send me a code',
    codeSent: 'If {email} can open an account, a 6-digit code is on its way there (valid 10 minutes).',
    code: 'Code from the e-mail',
    verify: 'Check the code',
    verified: '{email} is checked.',
    name: 'Your name',
    business: 'Name of your business',
    country: 'Country of your business',
    countryHelp: 'Where your business is registered.',
    password: 'Password (8 characters or more)',
    create: 'Create the account',
  },
  fr: {
    title: 'Créez votre compte',
    intro: 'Nous vérifions d’abord votre adresse e-mail avec un code, puis vous nommez votre entreprise.',
    email: 'Votre adresse e-mail',
    sendCode: 'Envoyez-moi un code',
    codeSent: 'Si {email} peut ouvrir un compte, un code à 6 chiffres y est envoyé (valable 10 minutes).',
    code: 'Code reçu par e-mail',
    verify: 'Vérifier le code',
    verified: '{email} est vérifiée.',
    name: 'Votre nom',
    business: 'Nom de votre entreprise',
    country: 'Pays de votre entreprise',
    countryHelp: 'Le pays où votre entreprise est enregistrée.',
    password: 'Mot de passe (8 caractères ou plus)',
    create: 'Créer le compte',
  },
};

/** Sign-up (docs/accounts.md): the address proved by an e-mailed code, then the account, its merchant and organization, signed in. */
export function SignUp({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useMessages(messages);
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
