import type { Knex } from 'knex';
import type { UserEvent } from '../user/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.user_passkeys: each user's passkeys as `GET /api/v1/auth/passkeys` lists them (never the key). */
export const userPasskeysProjection: Projection = {
  name: 'user_passkeys',
  tables: ['read.user_passkeys'],
  migrations: [
    {
      name: 'user_passkeys/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.user_passkeys (
          id text PRIMARY KEY,
          user_id text NOT NULL,
          nickname text NOT NULL,
          transports jsonb NOT NULL,
          backed_up boolean NOT NULL,
          created_at timestamptz NOT NULL,
          last_used_at timestamptz
        );
        CREATE INDEX user_passkeys_user ON read.user_passkeys (user_id, created_at)`),
    },
  ],
  handles: ['user.passkey_added', 'user.passkey_used', 'user.passkey_renamed', 'user.passkey_removed'],
  async apply(trx, event) {
    const e = event as unknown as UserEvent;
    const userId = event.streamId.slice('user-'.length);
    switch (e.type) {
      case 'user.passkey_added': {
        const p = e.data.passkey;
        await trx('read.user_passkeys')
          .insert({ id: p.credentialId, user_id: userId, nickname: p.nickname, transports: JSON.stringify(p.transports), backed_up: p.backedUp, created_at: p.createdAt })
          .onConflict('id')
          .ignore();
        return;
      }
      case 'user.passkey_used':
        await trx('read.user_passkeys').where({ id: e.data.credentialId, user_id: userId }).update({ last_used_at: e.data.at });
        return;
      case 'user.passkey_renamed':
        await trx('read.user_passkeys').where({ id: e.data.credentialId, user_id: userId }).update({ nickname: e.data.nickname });
        return;
      case 'user.passkey_removed':
        await trx('read.user_passkeys').where({ id: e.data.credentialId, user_id: userId }).delete();
        return;
      default:
        return;
    }
  },
};

export interface PasskeyRow {
  id: string;
  nickname: string;
  transports: string[];
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

/** A user's passkeys, oldest first. */
export function listPasskeys(knex: Knex, userId: string): Promise<PasskeyRow[]> {
  return knex('read.user_passkeys').where({ user_id: userId }).orderBy('created_at').orderBy('id').select<PasskeyRow[]>('id', 'nickname', 'transports', 'backed_up', 'created_at', 'last_used_at');
}
