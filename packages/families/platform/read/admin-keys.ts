import type { Knex } from 'knex';
import { ADMIN_KEY_SHAPE } from '../platform-admin/commands.js';
import { adminActor, type PlatformAdminEvent } from '../platform-admin/events.js';
import type { Projection } from '#packages/read-models/projection.js';

/** read.admin_keys: the platform operator credentials, looked up by the SHA-256 of the presented key. */
export const adminKeysProjection: Projection = {
  name: 'admin_keys',
  tables: ['read.admin_keys'],
  migrations: [
    {
      name: 'admin_keys/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.admin_keys (
          id text PRIMARY KEY,
          key_hash text NOT NULL UNIQUE,
          last4 text NOT NULL,
          name text NOT NULL,
          created_at timestamptz NOT NULL,
          revoked_at timestamptz
        )`),
    },
  ],
  handles: ['admin_key.created', 'admin_key.revoked'],
  async apply(trx, event) {
    const e = event as unknown as PlatformAdminEvent;
    if (e.type === 'admin_key.created') {
      await trx('read.admin_keys').insert({ id: e.data.keyId, key_hash: e.data.keyHash, last4: e.data.last4, name: e.data.name, created_at: e.data.createdAt }).onConflict('id').ignore();
      return;
    }
    await trx('read.admin_keys').where({ id: e.data.keyId }).update({ revoked_at: e.data.revokedAt });
  },
};

/** The live (not revoked) admin key with this hash. */
export function findAdminKeyByHash(knex: Knex, hash: string): Promise<{ id: string } | undefined> {
  return knex('read.admin_keys').where({ key_hash: hash }).whereNull('revoked_at').select('id').first();
}

/** Operator keys as the HTTP kernel checks them (its AdminKeys port): their shape, and the actor a live one acts as. */
export function adminKeyCredentials(knex: Knex) {
  return {
    looksLike: (credential: string) => ADMIN_KEY_SHAPE.test(credential),
    actorOf: async (keyHash: string) => {
      const admin = await findAdminKeyByHash(knex, keyHash);
      return admin ? adminActor(admin.id) : undefined;
    },
  };
}
