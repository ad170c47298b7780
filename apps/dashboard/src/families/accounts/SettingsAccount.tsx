import { useQuery } from '@tanstack/react-query';
import { AnyCountrySelect, countryName } from '../../shell/countries.js';
import { useContext, useState, type FormEvent } from 'react';
import { SwitchOrganizationContext } from '../../shell/OrganizationSwitch.js';
import { ErrorMessage, QueryView, Scrollable, useAction } from '../../shell/components.js';
import { formatWhen, LanguageContext, LOCALES, useMessages, type Messages } from '../../shell/i18n.js';
import { useSecondFactor } from '../../shell/secondFactor.js';
import { sika, signOut, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { isRole, ROLE_NAMES, type Role } from './roles.js';

/** The settings page's account sections: the profile, the user's organizations, where the user is signed in, and moving the account's e-mail address or phone number. */
const messages: Messages<
  | 'sessions'
  | 'sessionsNone'
  | 'thisSession'
  | 'started'
  | 'lastActive'
  | 'address'
  | 'device'
  | 'actions'
  | 'endSession'
  | 'endOthers'
  | 'othersEnded'
  | 'endAll'
  | 'endAllConfirm'
  | 'contact'
  | 'email'
  | 'phone'
  | 'noPhone'
  | 'newEmail'
  | 'changeEmail'
  | 'emailPending'
  | 'cancelEmail'
  | 'newPhone'
  | 'changePhone'
  | 'smsCode'
  | 'confirmPhone'
  | 'phoneChanged'
  | 'profile'
  | 'name'
  | 'secondaryEmail'
  | 'profileLanguage'
  | 'profileLanguageHelp'
  | 'profileLanguageNone'
  | 'saveProfile'
  | 'profileSaved'
  | 'organizations'
  | 'organization'
  | 'country'
  | 'type'
  | 'role'
  | 'current'
  | 'moveTo'
  | 'startHere'
  | 'newOrganization'
  | 'createOrganization'
  | 'countryHelp'
  | 'type.business'
  | 'type.individual'
  | 'type.nonprofit'
  | 'type.government'
  | `role.${Role}`
> = {
  en: {
    ...ROLE_NAMES.en,
    sessions: 'Where you are signed in',
    sessionsNone: 'No session.',
    thisSession: 'This session',
    started: 'Started',
    lastActive: 'Last active',
    address: 'Address',
    device: 'Device',
    actions: 'Actions',
    endSession: 'End session',
    endOthers: 'Sign out every other session',
    othersEnded: 'Other sessions ended: {count}',
    endAll: 'End every session',
    endAllConfirm: 'End every session, this one too? You will be signed out.',
    contact: 'E-mail address and phone number',
    email: 'E-mail address',
    phone: 'Phone number',
    noPhone: 'none',
    newEmail: 'New e-mail address',
    changeEmail: 'Change e-mail address',
    emailPending: 'A link was sent to {email}; the address changes when it is opened (before {time}).',
    cancelEmail: 'Cancel the change',
    newPhone: 'New phone number (with its country code)',
    changePhone: 'Send a code to this number',
    smsCode: 'Code received by SMS',
    confirmPhone: 'Confirm the number',
    phoneChanged: 'Phone number changed.',
    profile: 'Profile',
    name: 'Name',
    secondaryEmail: 'Second e-mail address (optional)',
    profileLanguage: 'Language of your e-mails (optional)',
    profileLanguageHelp: 'The language of the e-mails Sika sends you.',
    profileLanguageNone: 'The organization’s',
    saveProfile: 'Save profile',
    profileSaved: 'Profile saved.',
    organizations: 'Your organizations',
    organization: 'Organization',
    country: 'Country',
    type: 'Type',
    role: 'Your role',
    current: 'Current',
    moveTo: 'Switch to',
    startHere: 'Start here when I sign in',
    newOrganization: 'New organization',
    createOrganization: 'Create organization',
    countryHelp: 'Where this organization is registered.',
    'type.business': 'Business',
    'type.individual': 'Individual',
    'type.nonprofit': 'Non-profit',
    'type.government': 'Government',
  },
  fr: {
    ...ROLE_NAMES.fr,
    sessions: 'Où vous êtes connecté',
    sessionsNone: 'Aucune session.',
    thisSession: 'Cette session',
    started: 'Début',
    lastActive: 'Dernière activité',
    address: 'Adresse',
    device: 'Appareil',
    actions: 'Actions',
    endSession: 'Terminer la session',
    endOthers: 'Déconnecter toutes les autres sessions',
    othersEnded: 'Autres sessions terminées : {count}',
    endAll: 'Terminer toutes les sessions',
    endAllConfirm: 'Terminer toutes les sessions, celle-ci comprise ? Vous serez déconnecté.',
    contact: 'Adresse e-mail et numéro de téléphone',
    email: 'Adresse e-mail',
    phone: 'Numéro de téléphone',
    noPhone: 'aucun',
    newEmail: 'Nouvelle adresse e-mail',
    changeEmail: 'Changer d’adresse e-mail',
    emailPending: 'Un lien a été envoyé à {email} ; l’adresse change quand il est ouvert (avant {time}).',
    cancelEmail: 'Annuler le changement',
    newPhone: 'Nouveau numéro de téléphone (avec l’indicatif du pays)',
    changePhone: 'Envoyer un code à ce numéro',
    smsCode: 'Code reçu par SMS',
    confirmPhone: 'Confirmer le numéro',
    phoneChanged: 'Numéro de téléphone changé.',
    profile: 'Profil',
    name: 'Nom',
    secondaryEmail: 'Seconde adresse e-mail (facultative)',
    profileLanguage: 'Langue de vos e-mails (facultative)',
    profileLanguageHelp: 'La langue des e-mails que Sika vous envoie.',
    profileLanguageNone: 'Celle de l’organisation',
    saveProfile: 'Enregistrer le profil',
    profileSaved: 'Profil enregistré.',
    organizations: 'Vos organisations',
    organization: 'Organisation',
    country: 'Pays',
    type: 'Type',
    role: 'Votre rôle',
    current: 'Actuelle',
    moveTo: 'Passer à',
    startHere: 'Commencer ici à la connexion',
    newOrganization: 'Nouvelle organisation',
    createOrganization: 'Créer l’organisation',
    countryHelp: 'Le pays où cette organisation est enregistrée.',
    'type.business': 'Entreprise',
    'type.individual': 'Particulier',
    'type.nonprofit': 'Association',
    'type.government': 'Administration',
  },
};

type SectionProps = Pick<PageProps, 'environment' | 'onSignedOut'>;

/** The user's live sessions; any but this one can be ended (ending this one is signing out). */
export function Sessions({ environment, onSignedOut }: SectionProps) {
  const t = useMessages(messages);
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
  const t = useMessages(messages);
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
  const t = useMessages(messages);
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
  const t = useMessages(messages);
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
      await sika.post('/api/v1/organizations', { body: { displayName: String(data.get('displayName')).trim(), country: String(data.get('country')).trim().toUpperCase(), type: String(data.get('type')) as (typeof ORGANIZATION_TYPES)[number] } });
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
