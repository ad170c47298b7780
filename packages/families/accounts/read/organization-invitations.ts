import type { Knex } from 'knex';
import type { OrganizationEvent, Role } from '../organization/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.organization_invitations: who was invited to an organization, and what became of it. */
export const organizationInvitationsProjection: Projection = {
  name: 'organization_invitations',
  tables: ['read.organization_invitations'],
  migrations: [
    {
      name: 'organization_invitations/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.organization_invitations (
          id text PRIMARY KEY,
          organization_id text NOT NULL,
          email text NOT NULL,
          role text NOT NULL,
          status text NOT NULL CHECK (status IN ('pending', 'accepted', 'revoked')),
          invited_by text NOT NULL,
          accepted_by text,
          expires_at timestamptz NOT NULL,
          created_at timestamptz NOT NULL,
          ended_at timestamptz
        );
        CREATE INDEX organization_invitations_list ON read.organization_invitations (organization_id, created_at)`),
    },
  ],
  handles: ['organization.invitation_created', 'organization.invitation_revoked', 'organization.invitation_accepted'],
  async apply(trx, event) {
    const e = event as unknown as OrganizationEvent;
    switch (e.type) {
      case 'organization.invitation_created': {
        const d = e.data;
        await trx('read.organization_invitations')
          .insert({ id: d.invitationId, organization_id: d.organizationId, email: d.email, role: d.role, status: 'pending', invited_by: d.invitedBy, expires_at: d.expiresAt, created_at: d.at })
          .onConflict('id')
          .ignore();
        return;
      }
      case 'organization.invitation_revoked':
        await trx('read.organization_invitations').where({ id: e.data.invitationId }).update({ status: 'revoked', ended_at: e.data.at });
        return;
      case 'organization.invitation_accepted':
        await trx('read.organization_invitations').where({ id: e.data.invitationId }).update({ status: 'accepted', accepted_by: e.data.userId, ended_at: e.data.at });
        return;
      default:
        return;
    }
  },
};

export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  status: 'pending' | 'accepted' | 'revoked';
  invited_by: string;
  accepted_by: string | null;
  expires_at: Date;
  created_at: Date;
  ended_at: Date | null;
}

/** An organization's invitations, newest first. */
export function listInvitations(knex: Knex, organizationId: string): Promise<InvitationRow[]> {
  return knex('read.organization_invitations').where({ organization_id: organizationId }).orderBy('created_at', 'desc').orderBy('id').select<InvitationRow[]>('*');
}

export function findInvitation(knex: Knex, organizationId: string, id: string): Promise<InvitationRow | undefined> {
  return knex('read.organization_invitations').where({ organization_id: organizationId, id }).first<InvitationRow | undefined>();
}
