import type { Knex } from 'knex';
import type { Environment, MerchantEvent } from '../packages/domain/merchant/events.js';
import { rowChangeProjection } from './batch.js';
import type { Projection } from './projection.js';

/** read.api_keys: what authentication looks up, by the SHA-256 of the presented key. */
export const apiKeysProjection: Projection = {
  name: 'api_keys',
  tables: ['read.api_keys'],
  migrations: [
    {
      name: 'api_keys/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.api_keys (
          id text PRIMARY KEY,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          key_hash text NOT NULL UNIQUE,
          last4 text NOT NULL,
          scopes text[] NOT NULL,
          created_at timestamptz NOT NULL,
          revoked_at timestamptz
        );
        CREATE INDEX api_keys_merchant ON read.api_keys (merchant_id)`),
    },
  ],
  handles: ['api_key.created', 'api_key.revoked'],
  ...rowChangeProjection({ 'read.api_keys': ['id'] }, (event) => {
    const e = event as unknown as MerchantEvent;
    switch (e.type) {
      case 'api_key.created': {
        // Inserted, or replaced when it is there: an insert then an update of every column.
        const key = { id: e.data.keyId };
        const row = {
          merchant_id: e.data.merchantId,
          environment: e.data.environment,
          key_hash: e.data.keyHash,
          last4: e.data.last4,
          scopes: e.data.scopes,
          created_at: e.data.createdAt,
          revoked_at: null,
        };
        return [
          { table: 'read.api_keys', insert: { ...key, ...row } },
          { table: 'read.api_keys', key, set: row },
        ];
      }
      case 'api_key.revoked':
        return [{ table: 'read.api_keys', key: { id: e.data.keyId }, set: { revoked_at: e.data.revokedAt } }];
      default:
        return [];
    }
  }),
};

export interface ApiKeyRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  scopes: string[];
  revoked_at: Date | null;
}

export async function findApiKeyByHash(knex: Knex, keyHash: string): Promise<ApiKeyRow | undefined> {
  return knex('read.api_keys')
    .select('id', 'merchant_id', 'environment', 'scopes', 'revoked_at')
    .where({ key_hash: keyHash })
    .first<ApiKeyRow | undefined>();
}
