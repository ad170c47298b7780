import { useState, type FormEvent, type ReactNode } from 'react';
import { LanguagePicker } from '../../shell/LanguagePicker.js';
import { Link, useFailureText } from '../../shell/components.js';
import { useT } from '../../shell/i18n.js';
import { proveFactor, proveWithPasskey, type FactorAsked, type SignedInUser } from '../../shell/session.js';

/** A page of a signed-out visitor: a card with its title, the failure if any, and the language. */
export function SignedOutPage({ title, error, children, back = true }: { title: string; error?: string | null; children: ReactNode; back?: boolean }) {
  const t = useT();
  return (
    <main className="centered">
      <div className="card">
        <h1>{title}</h1>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {children}
        {back && (
          <p>
            <Link to="home">{t('signIn.back')}</Link>
          </p>
        )}
        <LanguagePicker />
      </div>
    </main>
  );
}

/**
 * A form's submit that shows the API's refusal (`setError`) and keeps the button busy meanwhile:
 * what every signed-out form does.
 */
export function useSubmit(setError: (text: string | null) => void) {
  const failureText = useFailureText();
  const [busy, setBusy] = useState(false);
  const submit = (work: (form: FormData) => Promise<void>) => async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await work(new FormData(e.currentTarget));
    } catch (err) {
      setError(failureText(err));
    } finally {
      setBusy(false);
    }
  };
  return { submit, busy };
}

/**
 * The second factor a sign-in asked for (by password, link or invitation): the passkey, or the
 * code of the factor (a recovery code answers any); then signed in.
 */
export function FactorForm({ asked, busy, submit, onSignedIn }: { asked: FactorAsked; busy: boolean; submit: ReturnType<typeof useSubmit>['submit']; onSignedIn: (user: SignedInUser) => void }) {
  const t = useT();
  return (
    <>
      {asked.factor === 'passkey' && (
        <form onSubmit={submit(async () => onSignedIn(await proveWithPasskey(asked.options)))} aria-label={t('passkey.use')}>
          <button type="submit" disabled={busy} autoFocus>
            {t('passkey.use')}
          </button>
        </form>
      )}
      <form onSubmit={submit(async (form) => onSignedIn(await proveFactor(asked.challengeId, String(form.get('code')).trim())))} aria-label={t('factor.title')}>
        <label>
          {t('signIn.code')}
          <input name="code" autoComplete="one-time-code" required aria-describedby="code-help" autoFocus={asked.factor !== 'passkey'} />
        </label>
        <p id="code-help" className="help">
          {t(`signIn.codeHelp.${asked.factor}`)}
        </p>
        <button type="submit" disabled={busy}>
          {t('signIn.verify')}
        </button>
      </form>
    </>
  );
}

/**
 * The address a link is e-mailed to (a sign-in link, a password reset), then the same answer
 * whether it has an account or not, so the page tells nobody which addresses do.
 */
export function SendLinkForm({ request, submit, busy }: { request: (email: string) => Promise<unknown>; submit: ReturnType<typeof useSubmit>['submit']; busy: boolean }) {
  const t = useT();
  const [sent, setSent] = useState<string | null>(null);
  const send = submit(async (form) => {
    const email = String(form.get('email')).trim();
    await request(email);
    setSent(email);
  });
  return sent ? (
    <p role="status">{t('link.sent').replace('{email}', sent)}</p>
  ) : (
    <form onSubmit={send} aria-label={t('link.send')}>
      <label>
        {t('link.email')}
        <input name="email" type="email" autoComplete="email" required maxLength={254} />
      </label>
      <button type="submit" disabled={busy}>
        {t('link.send')}
      </button>
    </form>
  );
}
