import type { Knex } from 'knex';
import type { UserEvent } from '../packages/domain/user/events.js';
import type { Projection } from './projection.js';

/** read.users: the profile `GET /api/v1/auth/me` shows. */
export const usersProjection: Projection = {
  name: 'users',
  tables: ['read.users'],
  migrations: [
    {
      name: 'users/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.users (
          id text PRIMARY KEY,
          email text NOT NULL,
          name text NOT NULL,
          phone text,
          secondary_email text,
          language text,
          onboarding_dismissed boolean NOT NULL DEFAULT false,
          onboarding_completed boolean NOT NULL DEFAULT false,
          onboarding_step text,
          email_verified_at timestamptz,
          phone_verified_at timestamptz,
          default_organization_id text,
          created_at timestamptz NOT NULL
        )`),
    },
  ],
  handles: ['user.created', 'user.default_organization_set', 'user.profile_updated', 'user.onboarding_updated', 'user.contact_verified', 'user.email_changed', 'user.phone_changed'],
  async apply(trx, event) {
    const e = event as unknown as UserEvent;
    const userId = event.streamId.slice('user-'.length);
    switch (e.type) {
      case 'user.created':
        await trx('read.users')
          .insert({ id: e.data.userId, email: e.data.email, name: e.data.name, phone: e.data.phone, default_organization_id: null, created_at: e.data.createdAt })
          .onConflict('id')
          .merge();
        return;
      case 'user.default_organization_set':
        await trx('read.users').where({ id: userId }).update({ default_organization_id: e.data.organizationId });
        return;
      case 'user.profile_updated': {
        const d = e.data;
        await trx('read.users')
          .where({ id: userId })
          .update({ ...(d.name !== undefined ? { name: d.name } : {}), ...(d.secondaryEmail !== undefined ? { secondary_email: d.secondaryEmail } : {}), ...(d.language !== undefined ? { language: d.language } : {}) });
        return;
      }
      case 'user.contact_verified':
        // Only the address the user holds now counts as verified.
        await trx('read.users')
          .where({ id: userId, [e.data.channel]: e.data.address })
          .update({ [`${e.data.channel}_verified_at`]: e.data.at });
        return;
      // A new address or number is not verified until a code or link sent there comes back.
      case 'user.email_changed':
        await trx('read.users').where({ id: userId }).update({ email: e.data.email, email_verified_at: null });
        return;
      case 'user.phone_changed':
        await trx('read.users').where({ id: userId }).update({ phone: e.data.phone, phone_verified_at: null });
        return;
      case 'user.onboarding_updated': {
        const d = e.data;
        await trx('read.users')
          .where({ id: userId })
          .update({
            ...(d.dismissed !== undefined ? { onboarding_dismissed: d.dismissed } : {}),
            ...(d.completed !== undefined ? { onboarding_completed: d.completed } : {}),
            ...(d.step !== undefined ? { onboarding_step: d.step } : {}),
          });
        return;
      }
      default:
        return;
    }
  },
};

export interface UserRow {
  id: string;
  email: string;
  name: string;
  phone: string | null;
  secondary_email: string | null;
  language: string | null;
  onboarding_dismissed: boolean;
  onboarding_completed: boolean;
  onboarding_step: string | null;
  email_verified_at: Date | null;
  phone_verified_at: Date | null;
  default_organization_id: string | null;
  created_at: Date;
}

export function findUser(knex: Knex, id: string): Promise<UserRow | undefined> {
  return knex('read.users').where({ id }).first<UserRow | undefined>();
}
