import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, QueryView, Scrollable, useAction } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { ROLES, type Role } from './roles.messages.js';
import { teamMessages } from './team.messages.js';

/** The roles that manage the team (docs/accounts.md, "Roles and scopes"); the API decides, this only chooses which view to show. */
const MANAGING: readonly string[] = ['owner', 'admin'];

/** The organization's members and roles, its invitations and whether owners must keep a second factor. */
export function Team({ environment, onSignedOut }: PageProps) {
  const t = useMessages(teamMessages);
  const me = useQuery({ queryKey: ['me', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/me'), onSignedOut) });
  return (
    <main className="page team">
      <h1>{t('title')}</h1>
      <QueryView query={me}>
        {(profile) => {
          const role = (profile.role ?? 'viewer') as Role;
          const manages = MANAGING.includes(role);
          return (
            <>
              {!manages && (
                <p className="notice" role="note">
                  {t('readOnly', { role: t(`role.${role}`) })}
                </p>
              )}
              <Members environment={environment} onSignedOut={onSignedOut} myId={profile.id ?? ''} manages={manages} />
              <Invitations environment={environment} onSignedOut={onSignedOut} manages={manages} />
              <TeamSecurity environment={environment} onSignedOut={onSignedOut} manages={role === 'owner'} />
            </>
          );
        }}
      </QueryView>
    </main>
  );
}

type SectionProps = Pick<PageProps, 'environment' | 'onSignedOut'> & { manages: boolean };

function Members({ environment, onSignedOut, manages, myId }: SectionProps & { myId: string }) {
  const t = useMessages(teamMessages);
  const { language } = useContext(LanguageContext);
  const members = useQuery({ queryKey: ['team-members', environment], queryFn: () => withSession(() => sika.get('/api/v1/merchant/team/members'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['team-members', environment]]);
  const changeRole = (userId: string, role: Role) => act.mutate(() => sika.patch('/api/v1/merchant/team/members/{userId}', { params: { path: { userId } }, body: { role } }));
  const remove = (userId: string, name: string) => {
    if (!window.confirm(t('removeConfirm', { name }))) return;
    act.mutate(() => sika.delete('/api/v1/merchant/team/members/{userId}', { params: { path: { userId } } }));
  };
  return (
    <section aria-labelledby="team-members">
      <h2 id="team-members">{t('members')}</h2>
      <ErrorMessage text={error} />
      <QueryView query={members}>
        {(list) => (
          <Scrollable labelledBy="team-members">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('member')}</th>
                  <th scope="col">{t('email')}</th>
                  <th scope="col">{t('role')}</th>
                  <th scope="col">{t('added')}</th>
                  {manages && <th scope="col">{t('actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((m) => (
                  <tr key={m.user_id}>
                    <th scope="row">
                      {m.name} {m.user_id === myId && t('you')}
                    </th>
                    <td>{m.email}</td>
                    <td>{t(`role.${(m.role ?? 'viewer') as Role}`)}</td>
                    <td>{formatWhen(language, m.added_at, 'date')}</td>
                    {manages && (
                      <td className="row-actions">
                        <RoleChange name={m.name ?? m.email ?? ''} role={(m.role ?? 'viewer') as Role} busy={act.isPending} onChange={(role) => changeRole(m.user_id!, role)} />
                        {m.user_id !== myId && (
                          <button type="button" className="danger" disabled={act.isPending} onClick={() => remove(m.user_id!, m.name ?? m.email ?? '')} aria-label={`${t('remove')}: ${m.name ?? m.email}`}>
                            {t('remove')}
                          </button>
                        )}
                      </td>
                    )}
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

function RoleChange({ name, role, busy, onChange }: { name: string; role: Role; busy: boolean; onChange(role: Role): void }) {
  const t = useMessages(teamMessages);
  const [picked, setPicked] = useState<Role>(role);
  return (
    <>
      <select value={picked} onChange={(e) => setPicked(e.target.value as Role)} aria-label={t('changeRole', { name })}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {t(`role.${r}`)}
          </option>
        ))}
      </select>
      <button type="button" disabled={busy || picked === role} onClick={() => onChange(picked)} aria-label={`${t('save')}: ${name}`}>
        {t('save')}
      </button>
    </>
  );
}

function Invitations({ environment, onSignedOut, manages }: SectionProps) {
  const t = useMessages(teamMessages);
  const { language } = useContext(LanguageContext);
  const [sent, setSent] = useState<string | null>(null);
  const invitations = useQuery({ queryKey: ['team-invitations', environment], queryFn: () => withSession(() => sika.get('/api/v1/merchant/team/invitations'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['team-invitations', environment]]);
  const invite = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get('email')).trim();
    const role = String(form.get('role')) as Role;
    const target = e.currentTarget;
    setSent(null);
    act.mutate(async () => {
      await sika.post('/api/v1/merchant/team/invitations', { body: { email, role } });
      setSent(email);
      target.reset();
    });
  };
  const revoke = (id: string) => {
    setSent(null);
    act.mutate(() => sika.delete('/api/v1/merchant/team/invitations/{id}', { params: { path: { id } } }));
  };
  return (
    <section aria-labelledby="team-invitations">
      <h2 id="team-invitations">{t('invitations')}</h2>
      <ErrorMessage text={error} />
      {sent && <p role="status">{t('invited', { email: sent })}</p>}
      {manages && (
        <form className="inline-form" onSubmit={invite} aria-label={t('invite')}>
          <label>
            {t('email')}
            <input name="email" type="email" required maxLength={254} autoComplete="off" />
          </label>
          <label>
            {t('role')}
            <select name="role" defaultValue="viewer">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {t(`role.${r}`)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={act.isPending}>
            {t('invite')}
          </button>
        </form>
      )}
      <QueryView query={invitations} isEmpty={(d) => !d.data?.length} empty={t('noInvitations')}>
        {(list) => (
          <Scrollable labelledBy="team-invitations">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('email')}</th>
                  <th scope="col">{t('role')}</th>
                  <th scope="col">{t('status')}</th>
                  <th scope="col">{t('expires')}</th>
                  {manages && <th scope="col">{t('actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((i) => (
                  <tr key={i.id}>
                    <th scope="row">{i.email}</th>
                    <td>{t(`role.${(i.role ?? 'viewer') as Role}`)}</td>
                    <td>
                      <Badge status={i.status ?? 'pending'}>{t(`status.${i.status ?? 'pending'}`)}</Badge>
                    </td>
                    <td>{formatWhen(language, i.expires_at, 'date')}</td>
                    {manages && (
                      <td className="row-actions">
                        {i.status === 'pending' && (
                          <button type="button" className="danger" disabled={act.isPending} onClick={() => revoke(i.id!)} aria-label={`${t('revoke')}: ${i.email}`}>
                            {t('revoke')}
                          </button>
                        )}
                      </td>
                    )}
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

/** Whether the organization requires its owners to keep a second factor (owners change it). */
function TeamSecurity({ environment, onSignedOut, manages }: SectionProps) {
  const t = useMessages(teamMessages);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  // What the user just picked, shown until the API answers (then its answer is shown).
  const [picked, setPicked] = useState<boolean | null>(null);
  const settings = useQuery({ queryKey: ['team-settings', environment], queryFn: () => withSession(() => sika.get('/api/v1/merchant/team/settings'), onSignedOut) });
  const change = useMutation({
    mutationFn: (require_mfa: boolean) => withSession(() => sika.patch('/api/v1/merchant/team/settings', { body: { require_mfa } }), onSignedOut),
    onMutate: () => setError(null),
    onSuccess: (answer) => queries.setQueryData(['team-settings', environment], answer),
    onError: (err) => setError(errorText(err, t('error.generic'))),
    onSettled: () => setPicked(null),
  });
  return (
    <section aria-labelledby="team-security">
      <h2 id="team-security">{t('security')}</h2>
      <ErrorMessage text={error} />
      <QueryView query={settings}>
        {(s) =>
          manages ? (
            <>
              <label className="check">
                <input
                  type="checkbox"
                  checked={picked ?? s.require_mfa ?? false}
                  disabled={change.isPending}
                  onChange={(e) => {
                    setPicked(e.target.checked);
                    change.mutate(e.target.checked);
                  }}
                  aria-describedby="require-mfa-help"
                />{' '}
                {t('requireMfa')}
              </label>
              <p id="require-mfa-help" className="help">
                {t('requireMfaHelp')}
              </p>
              {change.isSuccess && <p role="status">{t('saved')}</p>}
            </>
          ) : (
            <p>{t(s.require_mfa ? 'requireMfaOn' : 'requireMfaOff')}</p>
          )
        }
      </QueryView>
    </section>
  );
}
