import { useQuery } from '@tanstack/react-query';
import { AnyCountrySelect, countryName } from '../../shell/countries.js';
import { useContext, useState, type FormEvent } from 'react';
import { SwitchOrganizationContext } from '../../shell/OrganizationSwitch.js';
import { ErrorMessage, QueryView, Scrollable, useAction } from '../../shell/components.js';
import { formatWhen, LanguageContext, LOCALES, useMessages } from '../../shell/i18n.js';
import { useSecondFactor } from '../../shell/secondFactor.js';
import { sika, signOut, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { isRole } from './roles.messages.js';
import { settingsAccountMessages } from './settingsAccount.messages.js';

type SectionProps = Pick<PageProps, 'environment' | 'onSignedOut'>;

/** The user's live sessions; any but this one can be ended (ending this one is signing out). */
export function Sessions({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsAccountMessages);
  const { language } = useContext(LanguageContext);
  const [ended, setEnded] = useState<number | null>(null);
  const sessions = useQuery({ queryKey: ['sessions', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/sessions'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['sessions'], ['security-events']]);
  // Every session ends, this one too: the page is then signed out (the refresh cookie no longer works).
  const endAll = () => {
    if (!window.confirm(t('endAllConfirm'))) return;
    act.mutate(async () => {
      await sika.post('/api/v1/auth/sessions/revoke-all');
      await signOut();
      onSignedOut();
    });
  };
  const end = (id: string) => {
    setEnded(null);
    act.mutate(() => sika.delete('/api/v1/auth/sessions/{id}', { params: { path: { id } } }));
  };
  const others = (sessions.data?.data ?? []).filter((s) => !s.current).length;
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">{t('sessions')}</h2>
      <ErrorMessage text={error} />
      {ended !== null && <p role="status">{t('othersEnded', { count: ended })}</p>}
      <QueryView query={sessions} isEmpty={(d) => !d.data?.length} empty={t('sessionsNone')}>
        {(list) => (
          <Scrollable labelledBy="sessions">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('device')}</th>
                  <th scope="col">{t('address')}</th>
                  <th scope="col">{t('started')}</th>
                  <th scope="col">{t('lastActive')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((s) => (
                  <tr key={s.id}>
                    <th scope="row">{s.userAgent ?? '—'}</th>
                    <td>{s.ip ?? '—'}</td>
                    <td>{formatWhen(language, s.createdAt)}</td>
                    <td>{formatWhen(language, s.lastActiveAt)}</td>
                    <td>
                      {s.current ? (
                        <strong>{t('thisSession')}</strong>
                      ) : (
                        <button type="button" className="secondary" disabled={act.isPending} aria-label={`${t('endSession')}: ${s.userAgent ?? s.id} (${formatWhen(language, s.lastActiveAt)})`} onClick={() => end(s.id!)}>
                          {t('endSession')}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
      <div className="actions">
        {others > 0 && (
          <button type="button" className="danger" disabled={act.isPending} onClick={() => act.mutate(async () => setEnded((await sika.post('/api/v1/auth/sessions/revoke-others')).revoked ?? 0))}>
            {t('endOthers')}
          </button>
        )}
        <button type="button" className="danger" disabled={act.isPending} onClick={endAll}>
          {t('endAll')}
        </button>
      </div>
    </section>
  );
}

/**
 * Moving the account's e-mail address (proved by a link sent to the new one) or phone number
 * (proved by a code sent there by SMS); both ask the second factor first (docs/accounts.md).
 */
export function ContactChanges({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsAccountMessages);
  const { language } = useContext(LanguageContext);
  const { challenged, form: factorForm } = useSecondFactor();
  const [phoneRequest, setPhoneRequest] = useState<{ requestId: string; newPhone: string } | null>(null);
  const [phoneChanged, setPhoneChanged] = useState(false);
  const me = useQuery({ queryKey: ['me', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/me'), onSignedOut) });
  const pending = useQuery({ queryKey: ['email-change', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/email-change'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['me'], ['email-change'], ['security-events']]);

  const requestEmail = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const newEmail = String(new FormData(form).get('newEmail')).trim();
    act.mutate(async () => {
      const challengeId = await challenged('email-change/request');
      if (!challengeId) return;
      await sika.post('/api/v1/auth/email-change/request', { body: { challengeId, newEmail } });
      form.reset();
    });
  };
  const requestPhone = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const newPhone = String(new FormData(e.currentTarget).get('newPhone')).trim();
    setPhoneChanged(false);
    act.mutate(async () => {
      const challengeId = await challenged('phone-change/request');
      if (!challengeId) return;
      const asked = await sika.post('/api/v1/auth/phone-change/request', { body: { challengeId, newPhone } });
      setPhoneRequest({ requestId: asked.requestId!, newPhone: asked.newPhone! });
    });
  };
  const verifyPhone = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code')).trim();
    act.mutate(async () => {
      await sika.post('/api/v1/auth/phone-change/verify', { body: { requestId: phoneRequest!.requestId, code } });
      setPhoneRequest(null);
      setPhoneChanged(true);
    });
  };

  const waiting = pending.data?.pending;
  return (
    <section aria-labelledby="contact">
      <h2 id="contact">{t('contact')}</h2>
      {factorForm}
      <ErrorMessage text={error} />
      {phoneChanged && <p role="status">{t('phoneChanged')}</p>}
      <QueryView query={me}>
        {(user) => (
          <dl className="facts">
            <dt>{t('email')}</dt>
            <dd>{user.email}</dd>
            <dt>{t('phone')}</dt>
            <dd>{user.phone ?? t('noPhone')}</dd>
          </dl>
        )}
      </QueryView>
      {waiting ? (
        <div className="panel" role="status">
          <p>{t('emailPending', { email: waiting.newEmail ?? '', time: formatWhen(language, waiting.expiresAt) })}</p>
          <button type="button" className="secondary" disabled={act.isPending} onClick={() => act.mutate(() => sika.post('/api/v1/auth/email-change/cancel', { body: { requestId: waiting.requestId! } }))}>
            {t('cancelEmail')}
          </button>
        </div>
      ) : (
        <form className="inline-form" onSubmit={requestEmail} aria-label={t('changeEmail')}>
          <label>
            {t('newEmail')}
            <input name="newEmail" type="email" autoComplete="email" required maxLength={254} />
          </label>
          <button type="submit" disabled={act.isPending}>
            {t('changeEmail')}
          </button>
        </form>
      )}
      {phoneRequest ? (
        <form className="inline-form" onSubmit={verifyPhone} aria-label={t('confirmPhone')}>
          <label>
            {t('smsCode')} ({phoneRequest.newPhone})
            <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
          </label>
          <button type="submit" disabled={act.isPending}>
            {t('confirmPhone')}
          </button>
        </form>
      ) : (
        <form className="inline-form" onSubmit={requestPhone} aria-label={t('changePhone')}>
          <label>
            {t('newPhone')}
            <input name="newPhone" type="tel" autoComplete="tel" required minLength={3} maxLength={32} />
          </label>
          <button type="submit" disabled={act.isPending}>
            {t('changePhone')}
          </button>
        </form>
      )}
    </section>
  );
}

/** The user's name, second e-mail address and the language of the e-mails Sika sends them. */
export function Profile({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsAccountMessages);
  const { language } = useContext(LanguageContext);
  const [saved, setSaved] = useState(false);
  const me = useQuery({ queryKey: ['me', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/me'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['me'], ['security-events']]);
  const save = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const optional = (name: string) => String(data.get(name)).trim() || null;
    setSaved(false);
    act.mutate(async () => {
      await sika.patch('/api/v1/auth/personal-info', { body: { name: String(data.get('name')).trim(), secondaryEmail: optional('secondaryEmail'), language: optional('language') } });
      setSaved(true);
    });
  };
  return (
    <section aria-labelledby="profile">
      <h2 id="profile">{t('profile')}</h2>
      <ErrorMessage text={error} />
      {saved && <p role="status">{t('profileSaved')}</p>}
      <QueryView query={me}>
        {(user) => (
          <form className="inline-form" onSubmit={save} aria-label={t('profile')}>
            <label>
              {t('name')}
              <input name="name" defaultValue={user.name} required maxLength={200} autoComplete="name" />
            </label>
            <label>
              {t('secondaryEmail')}
              <input name="secondaryEmail" type="email" defaultValue={user.secondaryEmail ?? ''} maxLength={254} autoComplete="off" />
            </label>
            <label>
              {t('profileLanguage')}
              <select name="language" defaultValue={user.language ?? ''} aria-describedby="profile-language-help">
                <option value="">{t('profileLanguageNone')}</option>
                {/* The languages Sika writes in; one set before through the API stays offered as it is. */}
                {[...new Set(['en', 'fr', ...(user.language ? [user.language] : [])])].map((code) => (
                  <option key={code} value={code}>
                    {new Intl.DisplayNames(LOCALES[language], { type: 'language' }).of(code) ?? code}
                  </option>
                ))}
              </select>
            </label>
            <p id="profile-language-help" className="help">
              {t('profileLanguageHelp')}
            </p>
            <button type="submit" disabled={act.isPending}>
              {t('saveProfile')}
            </button>
          </form>
        )}
      </QueryView>
    </section>
  );
}

const ORGANIZATION_TYPES = ['business', 'individual', 'nonprofit', 'government'] as const;

/** The organizations the user belongs to: move to one (or make it where sign-ins start), or create one the user owns. */
export function Organizations({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(settingsAccountMessages);
  const { language } = useContext(LanguageContext);
  const switchTo = useContext(SwitchOrganizationContext);
  const mine = useQuery({ queryKey: ['organizations'], queryFn: () => withSession(() => sika.get('/api/v1/organizations/mine'), onSignedOut) });
  const current = useQuery({ queryKey: ['organization-current', environment], queryFn: () => withSession(() => sika.get('/api/v1/organizations/current'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['organizations']]);
  const create = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    act.mutate(async () => {
      await sika.post('/api/v1/organizations', {
        body: { displayName: String(data.get('displayName')).trim(), country: String(data.get('country')).trim().toUpperCase(), type: String(data.get('type')) as (typeof ORGANIZATION_TYPES)[number] },
      });
      form.reset();
    });
  };
  return (
    <section aria-labelledby="organizations">
      <h2 id="organizations">{t('organizations')}</h2>
      <ErrorMessage text={error} />
      <QueryView query={mine}>
        {(list) => (
          <Scrollable labelledBy="organizations">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('organization')}</th>
                  <th scope="col">{t('country')}</th>
                  <th scope="col">{t('type')}</th>
                  <th scope="col">{t('role')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((o) => (
                  <tr key={o.id}>
                    <th scope="row">{o.displayName}</th>
                    <td>{o.country ? countryName(language, o.country) : '—'}</td>
                    <td>{o.type ? t(`type.${o.type}`) : '—'}</td>
                    <td>{o.role && isRole(o.role) ? t(`role.${o.role}`) : o.role}</td>
                    <td>
                      <div className="actions">
                        {o.id === current.data?.id ? (
                          <strong>{t('current')}</strong>
                        ) : (
                          <button type="button" className="secondary" disabled={act.isPending} aria-label={`${t('moveTo')} ${o.displayName}`} onClick={() => act.mutate(() => switchTo(o.id!, false))}>
                            {t('moveTo')}
                          </button>
                        )}
                        <button type="button" className="secondary" disabled={act.isPending} aria-label={`${t('startHere')}: ${o.displayName}`} onClick={() => act.mutate(() => switchTo(o.id!, true))}>
                          {t('startHere')}
                        </button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
      <form className="inline-form" onSubmit={create} aria-label={t('newOrganization')}>
        <label>
          {t('organization')}
          <input name="displayName" required maxLength={128} autoComplete="organization" />
        </label>
        <AnyCountrySelect label={t('country')} name="country" describedBy="organization-country-help" />
        <label>
          {t('type')}
          <select name="type" defaultValue="business">
            {ORGANIZATION_TYPES.map((type) => (
              <option key={type} value={type}>
                {t(`type.${type}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={act.isPending}>
          {t('createOrganization')}
        </button>
      </form>
      <p id="organization-country-help" className="help">
        {t('countryHelp')}
      </p>
    </section>
  );
}
