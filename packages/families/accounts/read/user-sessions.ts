import type { Knex } from 'knex';
import type { Role } from '../organization/events.js';
import type { UserEvent } from '../user/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.user_sessions: a user's signed-in devices, and what access-token checks look up. */
export const userSessionsProjection: Projection = {
  name: 'user_sessions',
  tables: ['read.user_sessions'],
  migrations: [
    {
      name: 'user_sessions/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.user_sessions (
          id text PRIMARY KEY,
          user_id text NOT NULL,
          organization_id text NOT NULL,
          merchant_id text NOT NULL,
          user_agent text,
          ip text,
          created_at timestamptz NOT NULL,
          last_active_at timestamptz NOT NULL,
          expires_at timestamptz NOT NULL,
          revoked_at timestamptz,
          revoke_reason text,
          seq text NOT NULL
        );
        CREATE INDEX user_sessions_user ON read.user_sessions (user_id, seq DESC)`),
    },
  ],
  handles: ['user.session_started', 'user.session_refreshed', 'user.session_switched', 'user.session_revoked'],
  async apply(trx, event) {
    const e = event as unknown as UserEvent;
    switch (e.type) {
      case 'user.session_started': {
        const d = e.data;
        await trx('read.user_sessions')
          .insert({
            id: d.sessionId,
            user_id: event.streamId.slice('user-'.length),
            organization_id: d.organizationId,
            merchant_id: d.merchantId,
            user_agent: d.userAgent,
            ip: d.ip,
            created_at: d.at,
            last_active_at: d.at,
            expires_at: d.expiresAt,
            revoked_at: null,
            revoke_reason: null,
            seq: event.position,
          })
          .onConflict('id')
          .merge();
        return;
      }
      case 'user.session_refreshed':
        await trx('read.user_sessions').where({ id: e.data.sessionId }).update({ last_active_at: e.data.at, expires_at: e.data.expiresAt });
        return;
      case 'user.session_switched':
        await trx('read.user_sessions').where({ id: e.data.sessionId }).update({ organization_id: e.data.organizationId, merchant_id: e.data.merchantId });
        return;
      case 'user.session_revoked':
        await trx('read.user_sessions').where({ id: e.data.sessionId }).update({ revoked_at: e.data.at, revoke_reason: e.data.reason });
        return;
      default:
        return;
    }
  },
};

export interface UserSessionRow {
  id: string;
  user_id: string;
  organization_id: string;
  merchant_id: string;
  user_agent: string | null;
  ip: string | null;
  created_at: Date;
  last_active_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** The role the session's user holds in the organization, if the session can still act at `at` (not revoked, not expired) and the user is a member. */
export async function liveSessionRole(knex: Knex, id: string, organizationId: string, at: Date): Promise<Role | null> {
  const row = await knex('read.user_sessions as s')
    .join('read.organization_members as m', (j) => j.on('m.user_id', 's.user_id').andOnVal('m.organization_id', organizationId))
    .where('s.id', id)
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', at)
    .first<{ role: Role } | undefined>('m.role');
  return row?.role ?? null;
}

/** A user's live sessions, newest first. */
export function listLiveSessions(knex: Knex, userId: string, at: Date): Promise<UserSessionRow[]> {
  return knex('read.user_sessions').where({ user_id: userId }).whereNull('revoked_at').where('expires_at', '>', at).orderBy('seq', 'desc').select<UserSessionRow[]>();
}
