import { useState, type ReactNode } from 'react';
import { SignedOutCard, type useSubmit } from '../../shell/signedOutCard.js';
import { Link } from '../../shell/components.js';
import { useT } from '../../shell/i18n.js';
import { proveFactor, proveWithPasskey, type FactorAsked, type SignedInUser } from '../../shell/session.js';

/** A page of a signed-out visitor: the shell's card, with the way back to sign-in. */
export function SignedOutPage({ title, error, children, back = true }: { title: string; error?: string | null; children: ReactNode; back?: boolean }) {
  const t = useT();
  return (
    <SignedOutCard title={title} error={error ?? null}>
      {children}
      {back && (
        <p>
          <Link to="home">{t('signIn.back')}</Link>
        </p>
      )}
    </SignedOutCard>
  );
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
