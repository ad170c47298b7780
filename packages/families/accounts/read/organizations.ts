import type { Knex } from 'knex';
import type { OrganizationEvent, OrganizationType, Role } from '../organization/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.organizations, their merchants and their members (with roles). */
export const organizationsProjection: Projection = {
  name: 'organizations',
  tables: ['read.organizations', 'read.organization_merchants', 'read.organization_members'],
  migrations: [
    {
      name: 'organizations/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.organizations (
          id text PRIMARY KEY,
          display_name text NOT NULL,
          country text NOT NULL,
          type text NOT NULL,
          parent_id text,
          created_at timestamptz NOT NULL
        );
        CREATE TABLE read.organization_merchants (
          organization_id text NOT NULL,
          merchant_id text NOT NULL,
          added_at timestamptz NOT NULL,
          PRIMARY KEY (organization_id, merchant_id)
        );
        CREATE UNIQUE INDEX organization_merchants_merchant ON read.organization_merchants (merchant_id);
        CREATE TABLE read.organization_members (
          organization_id text NOT NULL,
          user_id text NOT NULL,
          role text NOT NULL,
          added_at timestamptz NOT NULL,
          PRIMARY KEY (organization_id, user_id)
        );
        CREATE INDEX organization_members_user ON read.organization_members (user_id)`),
    },
    {
      name: 'organizations/002-require-mfa',
      up: (knex) => knex.raw('ALTER TABLE read.organizations ADD COLUMN require_mfa boolean NOT NULL DEFAULT false'),
    },
  ],
  handles: ['organization.created', 'organization.merchant_added', 'organization.member_added', 'organization.member_role_changed', 'organization.member_removed', 'organization.settings_updated'],
  async apply(trx, event) {
    const e = event as unknown as OrganizationEvent;
    switch (e.type) {
      case 'organization.created': {
        const d = e.data;
        await trx('read.organizations').insert({ id: d.organizationId, display_name: d.displayName, country: d.country, type: d.type, parent_id: d.parentId, created_at: d.createdAt }).onConflict('id').merge();
        return;
      }
      case 'organization.merchant_added':
        await trx('read.organization_merchants').insert({ organization_id: e.data.organizationId, merchant_id: e.data.merchantId, added_at: e.data.at }).onConflict(['organization_id', 'merchant_id']).ignore();
        return;
      case 'organization.member_added':
        await trx('read.organization_members').insert({ organization_id: e.data.organizationId, user_id: e.data.userId, role: e.data.role, added_at: e.data.at }).onConflict(['organization_id', 'user_id']).merge();
        return;
      case 'organization.member_role_changed':
        await trx('read.organization_members').where({ organization_id: e.data.organizationId, user_id: e.data.userId }).update({ role: e.data.role });
        return;
      case 'organization.member_removed':
        await trx('read.organization_members').where({ organization_id: e.data.organizationId, user_id: e.data.userId }).delete();
        return;
      case 'organization.settings_updated':
        await trx('read.organizations').where({ id: e.data.organizationId }).update({ require_mfa: e.data.requireMfa });
        return;
      default:
        return;
    }
  },
};

export interface MemberRow {
  user_id: string;
  email: string;
  name: string;
  role: Role;
  added_at: Date;
}

/** The members of an organization with their profile, oldest first. */
export function listMembers(knex: Knex, organizationId: string): Promise<MemberRow[]> {
  return knex('read.organization_members as m')
    .join('read.users as u', 'u.id', 'm.user_id')
    .where('m.organization_id', organizationId)
    .orderBy([{ column: 'm.added_at' }, { column: 'm.user_id' }])
    .select<MemberRow[]>('m.user_id', 'u.email', 'u.name', 'm.role', 'm.added_at');
}

/** An organization as a member sees it: with their role and its merchants. */
export interface MembershipRow {
  id: string;
  display_name: string;
  country: string;
  type: OrganizationType;
  parent_id: string | null;
  created_at: Date;
  require_mfa: boolean;
  role: Role;
  merchant_ids: string[];
}

function memberships(knex: Knex, userId: string) {
  return knex('read.organization_members as m')
    .join('read.organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', userId)
    .select('o.*', 'm.role', knex.raw(`ARRAY(SELECT om.merchant_id FROM read.organization_merchants om WHERE om.organization_id = o.id ORDER BY om.added_at, om.merchant_id) AS merchant_ids`));
}

/** The organizations a user belongs to, oldest membership first. */
export function listMemberships(knex: Knex, userId: string): Promise<MembershipRow[]> {
  return memberships(knex, userId).orderBy([{ column: 'm.added_at' }, { column: 'o.id' }]) as unknown as Promise<MembershipRow[]>;
}

/** The user's membership of one organization, if they have one. */
export function findMembership(knex: Knex, userId: string, organizationId: string): Promise<MembershipRow | undefined> {
  return memberships(knex, userId).where('o.id', organizationId).first() as unknown as Promise<MembershipRow | undefined>;
}

/** The organization holding a merchant, if any. */
export async function organizationOfMerchant(knex: Knex, merchantId: string): Promise<string | undefined> {
  const row = await knex('read.organization_merchants').where({ merchant_id: merchantId }).first<{ organization_id: string } | undefined>();
  return row?.organization_id;
}

/**
 * The addresses and numbers the members of a merchant's organization proved they receive at (a
 * code or link sent there came back): where a sandbox automation may write (docs/automations.md).
 */
export async function verifiedTeamContacts(knex: Knex, merchantId: string): Promise<{ emails: string[]; phones: string[] }> {
  const rows = await knex('read.organization_merchants as om')
    .join('read.organization_members as m', 'm.organization_id', 'om.organization_id')
    .join('read.users as u', 'u.id', 'm.user_id')
    .where('om.merchant_id', merchantId)
    .select<{ email: string; phone: string | null; email_verified_at: Date | null; phone_verified_at: Date | null }[]>('u.email', 'u.phone', 'u.email_verified_at', 'u.phone_verified_at');
  return {
    emails: rows.filter((r) => r.email_verified_at !== null).map((r) => r.email.toLowerCase()),
    phones: rows.filter((r) => r.phone_verified_at !== null && r.phone !== null).map((r) => r.phone!),
  };
}

/** The members of the organization holding a merchant, with their address and role, oldest first. */
export async function listMembersOfMerchant(knex: Knex, merchantId: string): Promise<MemberRow[]> {
  const organizationId = await organizationOfMerchant(knex, merchantId);
  return organizationId === undefined ? [] : listMembers(knex, organizationId);
}
