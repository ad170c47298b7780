import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { QueryView, Scrollable } from '../../../src/shell/components.js';
import { formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { useOperatorAction, type ConsolePageProps } from '../components.js';
import { addPasskey, api } from '../session.js';
import { useConsoleT } from '../words.js';
import { securityMessages } from './security.messages.js';

const PASSKEYS = ['operator-passkeys'];

/** The signed-in operator's passkeys (docs/operator.md, "Passkeys"): listed, added behind a code of the app, removed. */
export function Security({ onSignedOut }: ConsolePageProps) {
  const t = useConsoleT(securityMessages);
  const { language } = useContext(LanguageContext);
  const passkeys = useQuery({ queryKey: PASSKEYS, queryFn: () => api.get('/api/v1/operator/me/passkeys') });
  const { action, error } = useOperatorAction(onSignedOut, [PASSKEYS]);
  return (
    <main className="page">
      <h1>{t('security.title')}</h1>
      <p>{t('security.intro')}</p>
      <h2 id="passkeys-heading">{t('security.passkeys')}</h2>
      <QueryView query={passkeys} isEmpty={(d) => (d.data ?? []).length === 0} empty={t('security.none')}>
        {(d) => (
          <Scrollable labelledBy="passkeys-heading">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('security.name')}</th>
                  <th scope="col">{t('security.added')}</th>
                  <th scope="col">{t('security.lastUsed')}</th>
                  <th scope="col">{t('security.action')}</th>
                </tr>
              </thead>
              <tbody>
                {(d.data ?? []).map((p) => (
                  <tr key={p.id}>
                    <th scope="row">{p.nickname}</th>
                    <td>{formatWhen(language, p.created)}</td>
                    <td>{p.lastUsed ? formatWhen(language, p.lastUsed) : t('security.never')}</td>
                    <td>
                      <button type="button" className="secondary" disabled={action.isPending} onClick={() => action.mutate(() => api.delete('/api/v1/operator/me/passkeys/{id}', { params: { path: { id: p.id } } }))}>
                        {t('security.remove', { name: p.nickname })}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
      <form
        aria-label={t('security.add')}
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const nickname = String(form.get('nickname')).trim();
          const element = e.currentTarget;
          action.mutate(() => addPasskey(String(form.get('code')).trim(), nickname || null), { onSuccess: () => element.reset() });
        }}
      >
        <h2>{t('security.add')}</h2>
        <label>
          {t('security.nickname')}
          <input name="nickname" maxLength={64} autoComplete="off" />
        </label>
        <label>
          {t('security.code')}
          <input name="code" inputMode="numeric" autoComplete="one-time-code" required pattern="[0-9 ]{6,8}" aria-describedby="add-code-help" />
        </label>
        <p id="add-code-help" className="help">
          {t('security.codeHelp')}
        </p>
        <button type="submit" disabled={action.isPending}>
          {t('security.add')}
        </button>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
