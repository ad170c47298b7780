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
          default_organization_id text,
          created_at timestamptz NOT NULL
        )`),
    },
  ],
  handles: ['user.created', 'user.default_organization_set'],
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
  default_organization_id: string | null;
  created_at: Date;
}

export function findUser(knex: Knex, id: string): Promise<UserRow | undefined> {
  return knex('read.users').where({ id }).first<UserRow | undefined>();
}
