import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, Link, QueryView, Scrollable, useAction } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { useSecondFactor } from '../../shell/secondFactor.js';
import { connectGoogle, passkeyRegistration, sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { ContactChanges, Organizations, Profile, Sessions } from './SettingsAccount.js';
import { SavedDestinations } from './SettingsDestinations.js';
import { securityEventWords, settingsMessages } from './settings.messages.js';

/** A security event's name in the language; a type this page does not know yet shows as the API names it. */
function eventName(type: string | undefined, language: 'en' | 'fr'): string {
  return (securityEventWords as Record<string, { en: string; fr: string }>)[type ?? '']?.[language] ?? type ?? '—';
}

type SectionProps = Pick<PageProps, 'environment' | 'onSignedOut'>;

/**
 * Settings' sections, each at its own address (/dashboard/settings/<section>; /dashboard/settings
 * is the first), so a link opens the section it is about: the user's profile and organizations;
 * how they sign in (e-mail and phone, password, second factors, Google, sessions, security
 * events); and the payout safety delay with the saved destinations.
 */
const SECTIONS = {
  profile: ({ environment, onSignedOut }: SectionProps) => (
    <>
      <Profile environment={environment} onSignedOut={onSignedOut} />
      <Organizations environment={environment} onSignedOut={onSignedOut} />
    </>
  ),
  security: ({ environment, onSignedOut }: SectionProps) => (
    <>
      <ContactChanges environment={environment} onSignedOut={onSignedOut} />
      <Password onSignedOut={onSignedOut} />
      <SecondFactors environment={environment} onSignedOut={onSignedOut} />
      <GoogleAccount environment={environment} onSignedOut={onSignedOut} />
      <Sessions environment={environment} onSignedOut={onSignedOut} />
      <SecurityEvents environment={environment} onSignedOut={onSignedOut} />
    </>
  ),
  payouts: ({ environment, onSignedOut }: SectionProps) => (
    <>
      <PayoutDelay environment={environment} onSignedOut={onSignedOut} />
      <SavedDestinations environment={environment} onSignedOut={onSignedOut} />
    </>
  ),
} as const;
type Section = keyof typeof SECTIONS;
const isSection = (id: string | undefined): id is Section => id !== undefined && Object.hasOwn(SECTIONS, id);

/** The signed-in user's settings, one section at a time (`id`, from the address; an unknown one is the first), with links to the others. */
export function Settings({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(settingsMessages);
  const section: Section = isSection(id) ? id : 'profile';
  const Shown = SECTIONS[section];
  return (
    <main className="page settings">
      <h1>{t('title')}</h1>
      <nav className="sections" aria-label={t('sections')}>
        <ul>
          {(Object.keys(SECTIONS) as Section[]).map((s) => (
            <li key={s}>
              <Link to="settingsSection" id={s} aria-current={s === section ? 'page' : undefined}>
                {t(`section.${s}`)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Shown environment={environment} onSignedOut={onSignedOut} />
    </main>
  );
}

/** The Google account the user signs in with (when the service offers Google): connected or disconnected, each behind a second-factor challenge. */
function GoogleAccount({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsMessages);
  const { language } = useContext(LanguageContext);
  const { challenged, form: factorForm } = useSecondFactor();
  const available = useQuery({ queryKey: ['google-availability'], queryFn: () => sika.get('/api/v1/auth/google/availability') });
  const google = useQuery({ queryKey: ['google', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/google'), onSignedOut), enabled: available.data?.available === true });
  const { action: act, error } = useAction(onSignedOut, [['google'], ['security-events']]);
  if (!available.data?.available) return null;
  // Connecting leaves for Google; the way back is the Google page, which then links here.
  const connect = () =>
    act.mutate(async () => {
      const challengeId = await challenged('google/connect');
      if (challengeId) await connectGoogle(challengeId);
    });
  const disconnect = () =>
    act.mutate(async () => {
      const challengeId = await challenged('google/disconnect');
      if (challengeId) await sika.post('/api/v1/auth/google/disconnect', { body: { challengeId } });
    });
  return (
    <section aria-labelledby="google-account">
      <h2 id="google-account">{t('google')}</h2>
      {factorForm}
      <ErrorMessage text={error} />
      <QueryView query={google}>
        {(g) =>
          g.connected ? (
            <p>
              {t('googleConnected', { email: g.email ?? '', when: formatWhen(language, g.connectedAt, 'date') })}{' '}
              <button type="button" className="secondary" disabled={act.isPending} onClick={disconnect}>
                {t('googleDisconnect')}
              </button>
            </p>
          ) : (
            <p>
              {t('googleNone')}{' '}
              <button type="button" disabled={act.isPending} onClick={connect}>
                {t('googleConnect')}
              </button>
            </p>
          )
        }
      </QueryView>
    </section>
  );
}

function SecondFactors({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsMessages);
  const { language } = useContext(LanguageContext);
  const { challenged, form: factorForm } = useSecondFactor();
  const [setup, setSetup] = useState<{ secretId: string; secret: string; qr: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const mfa = useQuery({ queryKey: ['mfa', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/mfa'), onSignedOut) });
  const passkeys = useQuery({ queryKey: ['passkeys', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/passkeys'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['mfa'], ['passkeys'], ['security-events']]);

  const startTotp = () =>
    act.mutate(async () => {
      setCodes(null);
      const challengeId = await challenged('mfa/totp/setup');
      if (!challengeId) return;
      const s = await sika.post('/api/v1/auth/mfa/totp/setup', { body: { challengeId } });
      setSetup({ secretId: s.secretId!, secret: s.secret!, qr: `data:image/svg+xml;base64,${btoa(s.qrCodeSvg ?? '')}` });
    });
  const confirmTotp = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code')).trim();
    act.mutate(async () => {
      const on = await sika.post('/api/v1/auth/mfa/totp/verify', { body: { secretId: setup!.secretId, code } });
      setSetup(null);
      setCodes(on.recoveryCodes ?? []);
    });
  };
  const disableTotp = () =>
    act.mutate(async () => {
      setCodes(null);
      const challengeId = await challenged('mfa/totp/disable');
      if (challengeId) await sika.post('/api/v1/auth/mfa/totp/disable', { body: { challengeId } });
    });
  const newCodes = () =>
    act.mutate(async () => {
      setCodes(null);
      const challengeId = await challenged('mfa/recovery-codes');
      if (challengeId) setCodes((await sika.post('/api/v1/auth/mfa/recovery-codes', { body: { challengeId } })).recoveryCodes ?? []);
    });
  const addPasskey = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const nickname = String(new FormData(form).get('nickname')).trim() || null;
    act.mutate(async () => {
      setCodes(null);
      const challengeId = await challenged('passkeys/register');
      if (!challengeId) return;
      const options = await sika.post('/api/v1/auth/passkeys/registration/begin', { body: { challengeId } });
      await sika.post('/api/v1/auth/passkeys/registration/complete', { body: { attestationResponse: await passkeyRegistration(options), nickname } });
      form.reset();
    });
  };
  const rename = (id: string, nickname: string) => act.mutate(() => sika.patch('/api/v1/auth/passkeys/{id}', { params: { path: { id } }, body: { nickname } }));
  const remove = (id: string) =>
    act.mutate(async () => {
      const challengeId = await challenged('passkeys/delete');
      if (challengeId) await sika.delete('/api/v1/auth/passkeys/{id}', { params: { path: { id } }, body: { challengeId } });
    });

  return (
    <section aria-labelledby="factors">
      <h2 id="factors">{t('factors')}</h2>
      {factorForm}
      <ErrorMessage text={error} />
      {codes && (
        <div className="panel secret" role="status">
          <p>{t('recoveryOnce')}</p>
          <ul className="recovery-codes" aria-label={t('recovery')}>
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <div className="actions">
            <button type="button" onClick={() => void navigator.clipboard?.writeText(codes.join('\n'))}>
              {t('action.copy')}
            </button>
            <button type="button" className="secondary" onClick={() => setCodes(null)}>
              {t('action.done')}
            </button>
          </div>
        </div>
      )}
      <QueryView query={mfa}>
        {(m) => (
          <>
            <h3>{t('totp')}</h3>
            <p>{t(m.totpEnabled ? 'totpOn' : 'totpOff')}</p>
            {setup ? (
              <form className="panel totp-setup" onSubmit={confirmTotp} aria-label={t('totpEnable')}>
                <p>{t('totpScan')}</p>
                <img src={setup.qr} alt={`${t('totpSecret')}: ${setup.secret}`} width={160} height={160} />
                <p>
                  {t('totpSecret')}: <code>{setup.secret}</code>
                </p>
                <label>
                  {t('totpCode')}
                  <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
                </label>
                <div className="actions">
                  <button type="submit" disabled={act.isPending}>
                    {t('totpConfirm')}
                  </button>
                  <button type="button" className="secondary" onClick={() => setSetup(null)}>
                    {t('action.cancel')}
                  </button>
                </div>
              </form>
            ) : m.totpEnabled ? (
              <button type="button" className="danger" disabled={act.isPending} onClick={disableTotp}>
                {t('totpDisable')}
              </button>
            ) : (
              <button type="button" disabled={act.isPending} onClick={startTotp}>
                {t('totpEnable')}
              </button>
            )}
            {m.totpEnabled && (
              <>
                <h3>{t('recovery')}</h3>
                <p>{t('recoveryLeft', { count: m.recoveryCodesRemaining ?? 0 })}</p>
                <button type="button" disabled={act.isPending} onClick={newCodes}>
                  {t('recoveryGenerate')}
                </button>
              </>
            )}
          </>
        )}
      </QueryView>
      <h3>{t('passkeys')}</h3>
      <QueryView query={passkeys} isEmpty={(d) => !d.data?.length} empty={t('passkeysNone')}>
        {(list) => (
          <ul className="passkeys">
            {(list.data ?? []).map((p) => (
              <li key={p.id}>
                <PasskeyRename id={p.id!} nickname={p.nickname ?? ''} busy={act.isPending} onRename={(n) => rename(p.id!, n)} />
                <button type="button" className="danger" disabled={act.isPending} aria-label={`${t('passkeyRemove')}: ${p.nickname || p.id}`} onClick={() => remove(p.id!)}>
                  {t('passkeyRemove')}
                </button>
                <span className="help">
                  {t('passkeyCreated')} {formatWhen(language, p.createdAt, 'date')}
                </span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
      <form className="inline-form" onSubmit={addPasskey} aria-label={t('passkeyAdd')}>
        <label>
          {t('passkeyName')}
          <input name="nickname" maxLength={64} autoComplete="off" placeholder={t('passkeyNameHint')} />
        </label>
        <button type="submit" disabled={act.isPending}>
          {t('passkeyAdd')}
        </button>
      </form>
    </section>
  );
}

function PasskeyRename({ id, nickname, busy, onRename }: { id: string; nickname: string; busy: boolean; onRename(nickname: string): void }) {
  const t = useMessages(settingsMessages);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    onRename(String(new FormData(e.currentTarget).get('nickname')).trim());
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`${t('passkeyRename')}: ${nickname || id}`}>
      <label>
        {t('passkeyName')}
        <input name="nickname" defaultValue={nickname} required maxLength={100} />
      </label>
      <button type="submit" disabled={busy}>
        {t('passkeyRename')}
      </button>
    </form>
  );
}

function Password({ onSignedOut }: Pick<PageProps, 'onSignedOut'>) {
  const t = useMessages(settingsMessages);
  const queries = useQueryClient();
  const change = useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => withSession(() => sika.post('/api/v1/auth/change-password', { body }), onSignedOut),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['security-events'] }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const target = e.currentTarget;
    change.mutate({ currentPassword: String(form.get('currentPassword')), newPassword: String(form.get('newPassword')) }, { onSuccess: () => target.reset() });
  };
  return (
    <section aria-labelledby="password">
      <h2 id="password">{t('password')}</h2>
      {change.isError && (
        <p className="error" role="alert">
          {errorText(change.error, t('error.generic'))}
        </p>
      )}
      {change.isSuccess && <p role="status">{t('passwordChanged')}</p>}
      <form className="inline-form" onSubmit={submit} aria-label={t('changePassword')}>
        <label>
          {t('currentPassword')}
          <input name="currentPassword" type="password" autoComplete="current-password" required />
        </label>
        <label>
          {t('newPassword')}
          <input name="newPassword" type="password" autoComplete="new-password" minLength={8} required />
        </label>
        <button type="submit" disabled={change.isPending}>
          {t('changePassword')}
        </button>
      </form>
    </section>
  );
}

/** The safety delay of new saved payout destinations in the environment shown; the API asks for a challenge when it is lowered. */
function PayoutDelay({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsMessages);
  const queries = useQueryClient();
  const { guarded, form: factorForm } = useSecondFactor();
  // The API reference gives this answer no schema: the fields read here are those of docs/decisions.md, "Payouts".
  const settings = useQuery({
    queryKey: ['payout-settings', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/settings/payouts'), onSignedOut),
  });
  const save = useMutation({
    mutationFn: (minutes: number) =>
      withSession(() => guarded('payout-settings/delay', (challenge_id) => sika.patch('/api/v1/merchant/settings/payouts', { body: { safety_delay_minutes: minutes, ...(challenge_id ? { challenge_id } : {}) } })), onSignedOut),
    onSuccess: (answer) => {
      if (answer) queries.setQueryData(['payout-settings', environment], answer);
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    save.mutate(Number(new FormData(e.currentTarget).get('delay')));
  };
  return (
    <section aria-labelledby="payout-settings">
      <h2 id="payout-settings">{t('payouts')}</h2>
      {factorForm}
      {save.isError && (
        <p className="error" role="alert">
          {errorText(save.error, t('error.generic'))}
        </p>
      )}
      {save.isSuccess && save.data && <p role="status">{t('delaySaved')}</p>}
      <QueryView query={settings}>
        {(s) => (
          <form className="inline-form" onSubmit={submit} aria-label={t('payouts')} key={`${environment}-${s.safety_delay_minutes}`}>
            <label>
              {t('delay')}
              <input name="delay" type="number" min={0} max={43200} step={1} required defaultValue={s.safety_delay_minutes} aria-describedby="delay-help" />
            </label>
            <button type="submit" disabled={save.isPending}>
              {t('delaySave')}
            </button>
            <p id="delay-help" className="help">
              {t('delayHelp')}
            </p>
          </form>
        )}
      </QueryView>
    </section>
  );
}

function SecurityEvents({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsMessages);
  const { language } = useContext(LanguageContext);
  const events = useQuery({ queryKey: ['security-events', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/security-events', { params: { query: { limit: 20 } } }), onSignedOut) });
  return (
    <section aria-labelledby="security-events">
      <h2 id="security-events">{t('events')}</h2>
      <QueryView query={events} isEmpty={(d) => !d.data?.length} empty={t('eventsNone')}>
        {(list) => (
          <Scrollable labelledBy="security-events">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('when')}</th>
                  <th scope="col">{t('event')}</th>
                  <th scope="col">{t('address')}</th>
                  <th scope="col">{t('device')}</th>
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((e) => (
                  <tr key={e.id}>
                    <th scope="row">{formatWhen(language, e.createdAt)}</th>
                    <td>{eventName(e.type, language)}</td>
                    <td>{e.ip ?? '—'}</td>
                    <td>{e.userAgent ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}
