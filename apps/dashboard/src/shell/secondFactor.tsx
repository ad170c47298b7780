import { useState, type FormEvent } from 'react';
import { SikaError } from '../../../../clients/typescript/src/index.js';
import { useT } from './i18n.js';
import { passkeyAssertion, sika } from './session.js';
import { ErrorMessage, useFailureText } from './components.js';

type Purpose =
  | 'api-keys/create'
  | 'api-keys/roll'
  | 'api-keys/revoke'
  | 'payout-settings/delay'
  | 'payouts/new-destination'
  | 'mfa/totp/setup'
  | 'mfa/totp/disable'
  | 'mfa/recovery-codes'
  | 'passkeys/delete'
  | 'passkeys/register'
  | 'google/connect'
  | 'google/disconnect'
  | 'email-change/request'
  | 'phone-change/request'
  | 'change-password-mfa';

/**
 * The API's answers that a change needs a verified challenge: API keys (IKW-ACC-011), weakening
 * the payout settings (IKW-PAY-006), a live payout to a destination never paid (IKW-PAY-007).
 */
const CHALLENGE_NEEDED = new Set(['IKW-ACC-011', 'IKW-PAY-006', 'IKW-PAY-007']);

interface Asked {
  purpose: Purpose;
  challengeId: string;
  factor: string;
  /** With a passkey: the WebAuthn options its assertion answers. */
  options?: unknown;
  resolve(challengeId: string | null): void;
}

/**
 * Changes that need a fresh second factor (docs/accounts.md): `run` first tries without one; when the
 * API answers that one is needed (CHALLENGE_NEEDED), a challenge of the purpose is asked for, the user
 * types the code in the form this hook renders, and `run` is tried again with the verified challenge.
 * `challenged` is for the operations that always take one (the authenticator app, recovery codes):
 * it resolves to the verified challenge, or null when the user cancels.
 */
export function useSecondFactor() {
  const t = useT();
  const failureText = useFailureText();
  const [asked, setAsked] = useState<Asked | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function guarded<T>(purpose: Purpose, run: (challengeId: string | undefined) => Promise<T>): Promise<T | null> {
    try {
      return await run(undefined);
    } catch (err) {
      if (!(err instanceof SikaError) || !CHALLENGE_NEEDED.has(err.code ?? '')) throw err;
    }
    const challengeId = await challenged(purpose);
    return challengeId === null ? null : run(challengeId);
  }

  async function challenged(purpose: Purpose): Promise<string | null> {
    const challenge = await sika.post('/api/v1/auth/mfa/challenge', { body: { purpose } });
    const challengeId = await new Promise<string | null>((resolve) => setAsked({ purpose, challengeId: challenge.challengeId!, factor: challenge.factor ?? 'totp', options: challenge.options, resolve }));
    setAsked(null);
    return challengeId;
  }

  /** Answers the challenge (`answer` throws on a refusal); verified, the change goes on. */
  const answered = async (answer: () => Promise<unknown>) => {
    if (!asked) return;
    setError(null);
    try {
      await answer();
      asked.resolve(asked.challengeId);
    } catch (err) {
      setError(failureText(err));
    }
  };
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code')).trim();
    void answered(() => sika.post('/api/v1/auth/mfa/verify', { body: { challengeId: asked!.challengeId, code } }));
  };
  const withPasskey = () => void answered(async () => sika.post('/api/v1/auth/passkeys/assertion/complete', { body: { assertionResponse: await passkeyAssertion(asked!.options) } }));

  const form = asked && (
    <form className="panel" onSubmit={submit} aria-labelledby="factor-title">
      <h2 id="factor-title">{t('factor.title')}</h2>
      <ErrorMessage text={error} />
      {asked.factor === 'passkey' && (
        <p>
          <button type="button" onClick={withPasskey} autoFocus>
            {t('passkey.use')}
          </button>
        </p>
      )}
      <label>
        {t('signIn.code')}
        <input
          name="code"
          type={asked.factor === 'password' ? 'password' : 'text'}
          autoComplete={asked.factor === 'password' ? 'current-password' : 'one-time-code'}
          required
          autoFocus={asked.factor !== 'passkey'}
          aria-describedby="factor-help"
        />
      </label>
      <p id="factor-help" className="help">
        {t(asked.factor === 'email' ? 'signIn.codeHelp.email' : asked.factor === 'password' ? 'signIn.codeHelp.password' : asked.factor === 'passkey' ? 'signIn.codeHelp.passkey' : 'signIn.codeHelp.totp')}
      </p>
      <div className="actions">
        <button type="submit">{t('signIn.verify')}</button>
        <button type="button" className="secondary" onClick={() => asked.resolve(null)}>
          {t('action.cancel')}
        </button>
      </div>
    </form>
  );
  return { guarded, challenged, form };
}
