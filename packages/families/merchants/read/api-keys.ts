import type { Knex } from 'knex';
import { notify } from '#packages/core/notifications.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import type { MerchantEvent } from '../merchant/events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import { pageOf, type PageList, type PageQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/**
 * The channel on which a key's revocation or roll is announced by the transaction that writes it
 * here, whichever store's projection that is (inline, or the projector of EventStoreDB): every
 * process's cache of keys forgets the key when it hears it, and reads a row that already says so.
 */
export const API_KEY_ENDS_CHANNEL = 'sika_api_key_ends';

/** Names, on API_KEY_ENDS_CHANNEL, the keys these events revoke or roll. */
async function notifyKeysEnded(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void> {
  const ended = events.filter((e) => e.type === 'api_key.revoked' || e.type === 'api_key.rolled').map((e) => (e.data as { keyId: string }).keyId);
  await notify(trx, API_KEY_ENDS_CHANNEL, [...new Set(ended)]);
}

/** The rows of read.api_keys each key event changes. */
const apiKeyRows = rowChangeProjection({ 'read.api_keys': ['id'] }, (event) => {
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
        name: e.data.name ?? null,
        rolled_from: e.data.rolledFrom ?? null,
        created_at: e.data.createdAt,
        revoked_at: null,
      };
      // seq: the creation's log position, so a rebuild lists keys in the same order.
      return [
        { table: 'read.api_keys', insert: { ...key, ...row, seq: event.position } },
        { table: 'read.api_keys', key, set: row },
      ];
    }
    case 'api_key.rolled':
      return [{ table: 'read.api_keys', key: { id: e.data.keyId }, set: { rolled_to: e.data.successorId, expires_at: e.data.expiresAt } }];
    case 'api_key.revoked':
      return [{ table: 'read.api_keys', key: { id: e.data.keyId }, set: { revoked_at: e.data.revokedAt } }];
    default:
      return [];
  }
});

/** read.api_keys: what authentication looks up, by the SHA-256 of the presented key, and what owners list. */
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
    {
      name: 'api_keys/002-names-and-rolls',
      up: (knex) =>
        knex.raw(`ALTER TABLE read.api_keys
          ADD COLUMN seq text,
          ADD COLUMN name text,
          ADD COLUMN rolled_from text,
          ADD COLUMN rolled_to text,
          ADD COLUMN expires_at timestamptz;
        DROP INDEX read.api_keys_merchant;
        CREATE INDEX api_keys_merchant ON read.api_keys (merchant_id, environment, seq);
        -- Keys created before: their creation's log position, where the log is this database's
        -- (an EventStoreDB log gives them theirs at the next rebuild of this read model).
        DO $$ BEGIN
          IF to_regclass('events') IS NOT NULL THEN
            UPDATE read.api_keys k SET seq = lpad(e.transaction_id::text, 20, '0') || ':' || lpad(e.global_position::text, 20, '0')
            FROM events e WHERE e.type = 'api_key.created' AND e.data->>'keyId' = k.id;
          END IF;
        END $$`),
    },
  ],
  handles: ['api_key.created', 'api_key.rolled', 'api_key.revoked'],
  apply: async (trx, event) => {
    await apiKeyRows.apply(trx, event);
    await notifyKeysEnded(trx, [event]);
  },
  applyBatch: async (trx, events) => {
    await apiKeyRows.applyBatch!(trx, events);
    await notifyKeysEnded(trx, events);
  },
};

/** What authentication needs of a key. */
export interface ApiKeyRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  scopes: string[];
  revoked_at: Date | null;
  /** Set when the key was rolled: it stops working then. */
  expires_at: Date | null;
}

/** Whether a key authenticates at `now`: neither revoked nor past the grace period of a roll. */
export function usable(key: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now: Date): boolean {
  return key.revoked_at === null && (key.expires_at === null || key.expires_at.getTime() > now.getTime());
}

export async function findApiKeyByHash(knex: Knex, keyHash: string): Promise<ApiKeyRow | undefined> {
  return knex('read.api_keys').select('id', 'merchant_id', 'environment', 'scopes', 'revoked_at', 'expires_at').where({ key_hash: keyHash }).first<ApiKeyRow | undefined>();
}

interface ApiKeyListRow extends ApiKeyRow {
  name: string | null;
  last4: string;
  rolled_from: string | null;
  rolled_to: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

const unix = (d: Date | null) => (d === null ? null : Math.floor(d.getTime() / 1000));

/** The public object of a key: never its secret (the create and roll answers add it, once). */
export function apiKeyObject(row: ApiKeyListRow, now: Date) {
  const status = row.revoked_at !== null ? 'revoked' : row.expires_at === null ? 'active' : row.expires_at.getTime() > now.getTime() ? 'expiring' : 'expired';
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    environment: row.environment,
    livemode: row.environment === 'live',
    redacted_secret: `sk_${row.environment === 'live' ? 'live' : 'test'}_…${row.last4}`,
    scopes: row.scopes,
    status,
    created: unix(row.created_at)!,
    last_used: unix(row.last_used_at),
    expires_at: unix(row.expires_at),
    revoked_at: unix(row.revoked_at),
    rolled_from: row.rolled_from,
    rolled_to: row.rolled_to,
  };
}

export type ApiKeyObject = ReturnType<typeof apiKeyObject>;

/** Keys with when each was last used (api_key_usage, packages/http/api-key-usage.ts), of one merchant and environment. */
function keysOf(knex: Knex, owner: Owner): Knex.QueryBuilder {
  return knex('read.api_keys as k').leftJoin('api_key_usage as u', 'u.key_id', 'k.id').select('k.*', 'u.last_used_at').where({ 'k.merchant_id': owner.merchantId, 'k.environment': owner.environment });
}

export async function findApiKey(knex: Knex, owner: Owner, id: string, now: Date): Promise<ApiKeyObject | undefined> {
  const row = await keysOf(knex, owner).andWhere('k.id', id).first<ApiKeyListRow | undefined>();
  return row && apiKeyObject(row, now);
}

/** Newest first; revoked and expired keys too, unless `status` narrows it. */
export function listApiKeys(knex: Knex, owner: Owner, query: PageQuery & { status?: 'active' | 'expiring' | 'expired' | 'revoked' }, now: Date): Promise<PageList<ApiKeyObject>> {
  const base = keysOf(knex, owner);
  switch (query.status) {
    case 'revoked':
      base.whereNotNull('k.revoked_at');
      break;
    case 'active':
      base.whereNull('k.revoked_at').whereNull('k.expires_at');
      break;
    case 'expiring':
      base.whereNull('k.revoked_at').where('k.expires_at', '>', now);
      break;
    case 'expired':
      base.whereNull('k.revoked_at').where('k.expires_at', '<=', now);
      break;
    case undefined: // every key
      break;
  }
  return pageOf<ApiKeyListRow, ApiKeyObject>(base, query, (row) => apiKeyObject(row, now));
}
