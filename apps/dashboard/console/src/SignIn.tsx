import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { SignedOutCard, useSubmit } from '../../src/shell/signedOutCard.js';
import { acceptInvitation, completeSignIn, completeSignInWithPasskey, signIn, type SignedInOperator, type SignInStarted } from './session.js';
import { useConsoleT } from './words.js';

/** The shell's signed-out submit, with the refusal kept here. */
function useSubmitted() {
  const [error, setError] = useState<string | null>(null);
  return { ...useSubmit(setError), error };
}

/** E-mail and password, then the authenticator app's code (docs/operator.md, "Signing in"): never a session without both. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (operator: SignedInOperator) => void; notice?: string | null }) {
  const t = useConsoleT();
  const [started, setStarted] = useState<SignInStarted | null>(null);
  const { submit, busy, error } = useSubmitted();
  if (started) return <SecondFactor started={started} onSignedIn={onSignedIn} />;
  return (
    <SignedOutCard title={t('console.signIn.title')} error={error ?? notice ?? null}>
      <p>{t('console.signIn.intro')}</p>
      <form onSubmit={submit(async (form) => setStarted(await signIn(String(form.get('email')), String(form.get('password')))))}>
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
      <p>
        <a href="/dashboard/">{t('console.signIn.toDashboard')}</a>
      </p>
    </SignedOutCard>
  );
}

/** The invitation link's page: a password, then the authenticator app added, then signed in. */
export function Invitation({ onSignedIn }: { onSignedIn: (operator: SignedInOperator) => void }) {
  const t = useConsoleT();
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token'));
  const [started, setStarted] = useState<SignInStarted | null>(null);
  const { submit, busy, error } = useSubmitted();
  useEffect(() => {
    // The token is in the address once: it is not kept in the history for another to reuse.
    if (token) window.history.replaceState(null, '', window.location.pathname);
  }, [token]);
  if (started) return <SecondFactor started={started} onSignedIn={onSignedIn} />;
  return (
    <SignedOutCard title={t('console.invitation.title')} error={error}>
      {token ? (
        <form onSubmit={submit(async (form) => setStarted(await acceptInvitation(token, String(form.get('password')))))}>
          <p>{t('console.invitation.intro')}</p>
          <label>
            {t('console.invitation.password')}
            <input name="password" type="password" autoComplete="new-password" required minLength={8} />
          </label>
          <button type="submit" disabled={busy}>
            {t('console.invitation.submit')}
          </button>
        </form>
      ) : (
        <p role="alert">{t('console.invitation.noToken')}</p>
      )}
    </SignedOutCard>
  );
}

/** The code of the authenticator app; for a first sign-in, the app's secret to add first (a QR code and its text). */
function SecondFactor({ started, onSignedIn }: { started: SignInStarted; onSignedIn: (operator: SignedInOperator) => void }) {
  const t = useConsoleT();
  const { submit, busy, error } = useSubmitted();
  const [qr, setQr] = useState<string | null>(null);
  const enrolling = started.next === 'enroll_totp';
  useEffect(() => {
    const url = started.totp?.otpauthUrl;
    if (!url) return;
    let current = true;
    void QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }).then((svg) => current && setQr(`data:image/svg+xml,${encodeURIComponent(svg)}`));
    return () => {
      current = false;
    };
  }, [started.totp?.otpauthUrl]);
  return (
    <SignedOutCard title={t(enrolling ? 'console.enroll.title' : 'console.code.title')} error={error}>
      {enrolling && (
        <>
          <p>{t('console.enroll.help')}</p>
          {qr && <img className="qr" src={qr} alt={t('console.enroll.qr')} width={180} height={180} />}
          <p>
            {t('console.enroll.secret')}: <code className="secret">{started.totp?.secret}</code>
          </p>
        </>
      )}
      {started.passkeyOptions !== undefined && (
        <form onSubmit={submit(async () => onSignedIn(await completeSignInWithPasskey(started)))} aria-label={t('passkey.use')}>
          <button type="submit" disabled={busy}>
            {t('passkey.use')}
          </button>
          <p className="help">{t('console.passkey.orCode')}</p>
        </form>
      )}
      <form onSubmit={submit(async (form) => onSignedIn(await completeSignIn(started.challengeToken, String(form.get('code')).trim())))} aria-label={t('console.code.title')}>
        <label>
          {t('console.code.label')}
          <input name="code" inputMode="numeric" autoComplete="one-time-code" required pattern="[0-9 ]{6,8}" aria-describedby="code-help" />
        </label>
        <p id="code-help" className="help">
          {t('console.code.help')}
        </p>
        <button type="submit" className={started.passkeyOptions !== undefined ? 'secondary' : undefined} disabled={busy}>
          {t('console.code.submit')}
        </button>
      </form>
    </SignedOutCard>
  );
}
