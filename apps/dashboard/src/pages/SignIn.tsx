import { useState, type FormEvent } from 'react';
import { LanguagePicker } from '../App.js';
import { useT } from '../i18n.js';
import { proveFactor, signIn, type FactorAsked, type SignedInUser } from '../session.js';
import { errorText } from '../components.js';

/** Password, then the second factor when the account has one (docs/auth.md, "The factor rule"). */
export function SignIn({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const t = useT();
  const [asked, setAsked] = useState<FactorAsked | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = (work: (form: FormData) => Promise<void>) => async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await work(new FormData(e.currentTarget));
    } catch (err) {
      setError(errorText(err, t('error.generic')));
    } finally {
      setBusy(false);
    }
  };

  const withPassword = submit(async (form) => {
    const answer = await signIn(String(form.get('email')), String(form.get('password')));
    if ('challengeId' in answer) setAsked(answer);
    else onSignedIn(answer);
  });
  const withCode = submit(async (form) => onSignedIn(await proveFactor(asked!.challengeId, String(form.get('code')).trim())));

  return (
    <main className="centered">
      <div className="card">
        <h1>{t('signIn.title')}</h1>
        {error && (
          <p className="error" role="alert">
            {t('signIn.failed')}: {error}
          </p>
        )}
        {asked === null ? (
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
        ) : (
          <form onSubmit={withCode}>
            <label>
              {t('signIn.code')}
              <input name="code" autoComplete="one-time-code" required aria-describedby="code-help" autoFocus />
            </label>
            <p id="code-help" className="help">
              {t(`signIn.codeHelp.${asked.factor}`)}
            </p>
            <button type="submit" disabled={busy}>
              {t('signIn.verify')}
            </button>
          </form>
        )}
        <LanguagePicker />
      </div>
    </main>
  );
}
