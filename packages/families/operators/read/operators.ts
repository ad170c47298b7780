import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { OperatorRole } from '#packages/core/owner.js';
import type { OperatorStatus } from '../events.js';
import type { OperatorTokens } from '../tokens.js';
import type { CredentialEvent, TeamEvent } from '../events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.operators: the operator team as the console lists it. */
export const operatorsProjection: Projection = {
  name: 'operators',
  tables: ['read.operators'],
  migrations: [
    {
      name: 'operators/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.operators (
          id text PRIMARY KEY,
          seq text NOT NULL,
          email text NOT NULL,
          name text NOT NULL,
          role text NOT NULL,
          status text NOT NULL,
          authenticator boolean NOT NULL,
          invited_at timestamptz NOT NULL,
          activated_at timestamptz,
          deactivated_at timestamptz
        );
        CREATE INDEX operators_list ON read.operators (seq)`),
    },
  ],
  handles: ['operator.invited', 'operator.activated', 'operator.role_changed', 'operator.deactivated', 'operator.totp_enrolled'],
  async apply(trx, event) {
    const e = event as unknown as TeamEvent | CredentialEvent;
    const rows = trx('read.operators');
    switch (e.type) {
      case 'operator.invited': {
        const d = e.data;
        await rows.insert({ id: d.operatorId, seq: event.position, email: d.email, name: d.name, role: d.role, status: 'invited', authenticator: false, invited_at: d.at }).onConflict('id').ignore();
        return;
      }
      case 'operator.activated':
        await rows.where({ id: e.data.operatorId }).update({ status: 'active', activated_at: e.data.at });
        return;
      case 'operator.role_changed':
        await rows.where({ id: e.data.operatorId }).update({ role: e.data.role });
        return;
      case 'operator.deactivated':
        await rows.where({ id: e.data.operatorId }).update({ status: 'deactivated', deactivated_at: e.data.at });
        return;
      case 'operator.totp_enrolled':
        await rows.where({ id: event.streamId.slice('operator-'.length) }).update({ authenticator: true });
        return;
      default:
        return;
    }
  },
};

/** read.operator_sessions: what the HTTP edge checks an operator session token against. */
export const operatorSessionsProjection: Projection = {
  name: 'operator_sessions',
  tables: ['read.operator_sessions'],
  migrations: [
    {
      name: 'operator_sessions/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.operator_sessions (
          id text PRIMARY KEY,
          operator_id text NOT NULL,
          created_at timestamptz NOT NULL,
          expires_at timestamptz NOT NULL,
          ended_at timestamptz,
          end_reason text
        );
        CREATE INDEX operator_sessions_operator ON read.operator_sessions (operator_id)`),
    },
  ],
  handles: ['operator.session_started', 'operator.session_ended'],
  async apply(trx, event) {
    const e = event as unknown as CredentialEvent;
    if (e.type === 'operator.session_started') {
      await trx('read.operator_sessions')
        .insert({ id: e.data.sessionId, operator_id: event.streamId.slice('operator-'.length), created_at: e.data.at, expires_at: e.data.expiresAt })
        .onConflict('id')
        .ignore();
    } else if (e.type === 'operator.session_ended') {
      await trx('read.operator_sessions').where({ id: e.data.sessionId }).update({ ended_at: e.data.at, end_reason: e.data.reason });
    }
  },
};

export interface OperatorRow {
  id: string;
  seq: string;
  email: string;
  name: string;
  role: OperatorRole;
  status: OperatorStatus;
  authenticator: boolean;
  invited_at: Date;
  activated_at: Date | null;
  deactivated_at: Date | null;
}

export function findOperator(knex: Knex, id: string): Promise<OperatorRow | undefined> {
  return knex('read.operators').where({ id }).first<OperatorRow | undefined>();
}

/** The team, newest invitation first; deactivated operators too unless `status` narrows it. */
export function listOperators(knex: Knex, filters: { status?: OperatorStatus; role?: OperatorRole }): Promise<OperatorRow[]> {
  const given = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined));
  return knex('read.operators').where(given).orderBy('seq', 'desc').select<OperatorRow[]>();
}

/**
 * Operator sessions as the HTTP kernel checks them (its OperatorSessionVerifier port): a token
 * signed for an operator, of a session neither ended nor expired, of an active operator: their
 * role as it is now. A token of ours for anything less is `ended`; anything else, unknown.
 */
export function operatorSessionCredentials(knex: Knex, tokens: OperatorTokens, clock: Clock) {
  return {
    async verify(token: string): Promise<{ operatorId: string; sessionId: string; role: OperatorRole } | 'ended' | undefined> {
      const claims = await tokens.claims(token);
      if (claims === undefined) return undefined;
      if (claims === 'expired') return 'ended';
      const row = await knex('read.operator_sessions as s')
        .join('read.operators as o', 'o.id', 's.operator_id')
        .where({ 's.id': claims.sessionId, 's.operator_id': claims.operatorId, 'o.status': 'active' })
        .whereNull('s.ended_at')
        .where('s.expires_at', '>', clock.now())
        .first<{ role: OperatorRole } | undefined>('o.role');
      return row ? { operatorId: claims.operatorId, sessionId: claims.sessionId, role: row.role } : 'ended';
    },
  };
}
