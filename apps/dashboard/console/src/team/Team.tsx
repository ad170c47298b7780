import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../../src/shell/Badge.js';
import { ErrorMessage, QueryView, Scrollable } from '../../../src/shell/components.js';
import { formatWhen, LanguageContext, type Language } from '../../../src/shell/i18n.js';
import { useOperatorAction, type ConsolePageProps } from '../components.js';
import { api, type OperatorRole } from '../session.js';
import { useConsoleT } from '../words.js';
import './team.css';
import { teamMessages } from './team.messages.js';

const ROLES: readonly OperatorRole[] = ['reviewer', 'risk', 'finance', 'admin'];
const TEAM = ['operator-team'];
type Member = Answer<'get', '/api/v1/operator/team'>['data'][number];

/** The operator team (admins): invite, change a role, deactivate (docs/operator.md, "The team"). */
export function Team({ operator, onSignedOut }: ConsolePageProps) {
  const t = useConsoleT(teamMessages);
  const admin = operator.role === 'admin';
  // What the last change did, said in words above the list.
  const [said, setSaid] = useState<string | null>(null);
  const { action, error } = useOperatorAction(onSignedOut, [TEAM]);
  const change = (work: () => Promise<unknown>, done: string) => {
    setSaid(null);
    action.mutate(async () => {
      await work();
      setSaid(done);
    });
  };
  return (
    <main className="page console-team">
      <h1>{t('team.title')}</h1>
      {admin ? (
        <>
          <p className="help">{t('team.intro')}</p>
          <ErrorMessage text={error} />
          {said && <p role="status">{said}</p>}
          <Invite busy={action.isPending} change={change} />
          <Members me={operator.id} busy={action.isPending} change={change} />
        </>
      ) : (
        <p role="note">{t('console.notForRole', { role: t(`console.role.${operator.role}`) })}</p>
      )}
    </main>
  );
}

type Change = (work: () => Promise<unknown>, done: string) => void;

function Invite({ busy, change }: { busy: boolean; change: Change }) {
  const t = useConsoleT(teamMessages);
  const invite = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const target = e.currentTarget;
    const form = new FormData(target);
    const email = String(form.get('email')).trim();
    const role = String(form.get('role')) as OperatorRole;
    change(
      async () => {
        await api.post('/api/v1/operator/team/invitations', { body: { email, name: String(form.get('name')).trim(), role } });
        target.reset();
      },
      t('team.invited', { email, role: t(`console.role.${role}`) }),
    );
  };
  return (
    <section aria-labelledby="team-invite">
      <h2 id="team-invite">{t('team.invite')}</h2>
      <p className="help" id="team-invite-help">
        {t('team.inviteHelp')}
      </p>
      <form className="inline-form" onSubmit={invite} aria-labelledby="team-invite" aria-describedby="team-invite-help">
        <label>
          {t('team.name')}
          <input name="name" required maxLength={200} autoComplete="off" />
        </label>
        <label>
          {t('team.email')}
          <input name="email" type="email" required maxLength={254} autoComplete="off" />
        </label>
        <label>
          {t('team.role')}
          <select name="role" defaultValue="reviewer">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`console.role.${r}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy}>
          {t('team.submit')}
        </button>
      </form>
    </section>
  );
}

function Members({ me, busy, change }: { me: string; busy: boolean; change: Change }) {
  const t = useConsoleT(teamMessages);
  const { language } = useContext(LanguageContext);
  const team = useQuery({ queryKey: TEAM, queryFn: () => api.get('/api/v1/operator/team') });
  return (
    <section aria-labelledby="team-members">
      <h2 id="team-members">{t('team.members')}</h2>
      <QueryView query={team}>
        {(list) => (
          <Scrollable labelledBy="team-members">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('team.operator')}</th>
                  <th scope="col">{t('team.role')}</th>
                  <th scope="col">{t('team.status')}</th>
                  <th scope="col">{t('team.factor')}</th>
                  <th scope="col">{t('team.dates')}</th>
                  <th scope="col">{t('team.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((m) => (
                  <MemberRow key={m.id} member={m} me={m.id === me} busy={busy} change={change} language={language} />
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}

function MemberRow({ member: m, me, busy, change, language }: { member: Member; me: boolean; busy: boolean; change: Change; language: Language }) {
  const t = useConsoleT(teamMessages);
  const [role, setRole] = useState<OperatorRole>(m.role);
  const [confirming, setConfirming] = useState(false);
  const name = m.name || m.email;
  const roleWord = (r: OperatorRole) => t(`console.role.${r}`);
  return (
    <tr>
      <th scope="row">
        {m.name} {me && t('team.you')}
        <span className="row-detail">{m.email}</span>
      </th>
      <td>
        <Badge status={null}>{roleWord(m.role)}</Badge>
      </td>
      <td>
        {/* The badges' tones are the statuses': deactivated reads as stopped. */}
        <Badge status={m.status === 'deactivated' ? 'inactive' : m.status}>{t(`team.status.${m.status}`)}</Badge>
      </td>
      <td>{m.authenticator ? t('team.factor.yes') : t('team.factor.no')}</td>
      <td>
        {t('team.invitedAt', { date: formatWhen(language, m.invited, 'date') })}
        {m.activated && <span className="row-detail">{t('team.activatedAt', { date: formatWhen(language, m.activated, 'date') })}</span>}
      </td>
      <td>
        {m.status !== 'deactivated' &&
          (confirming ? (
            <span className="confirm" role="group" aria-label={t('team.deactivate')}>
              <span>{t('team.deactivateConfirm', { name })}</span>
              <button
                type="button"
                className="danger"
                disabled={busy}
                onClick={() => {
                  setConfirming(false);
                  change(() => api.post('/api/v1/operator/team/{id}/deactivate', { params: { path: { id: m.id } } }), t('team.deactivated', { name }));
                }}
              >
                {t('team.deactivateYes')}
              </button>
              {/* The question takes the place of the button that asked it: the keyboard starts on the safe answer. */}
              <button type="button" className="secondary" onClick={() => setConfirming(false)} autoFocus>
                {t('action.cancel')}
              </button>
            </span>
          ) : (
            <div className="row-actions">
              <select value={role} onChange={(e) => setRole(e.target.value as OperatorRole)} aria-label={t('team.changeRole', { name })}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {roleWord(r)}
                  </option>
                ))}
              </select>
              <button
                type="button"
                disabled={busy || role === m.role}
                onClick={() => change(() => api.post('/api/v1/operator/team/{id}/role', { params: { path: { id: m.id } }, body: { role } }), t('team.roleChanged', { name, role: roleWord(role) }))}
                aria-label={`${t('team.saveRole')}: ${name}`}
              >
                {t('team.saveRole')}
              </button>
              <button type="button" className="danger" disabled={busy} onClick={() => setConfirming(true)} aria-label={`${t('team.deactivate')}: ${name}`}>
                {t('team.deactivate')}
              </button>
            </div>
          ))}
      </td>
    </tr>
  );
}
