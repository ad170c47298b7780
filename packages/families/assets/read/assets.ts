import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { AssetEvent, AssetObject, AssetPurpose, AssetStatus } from '../events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.assets: merchants' files as their latest event left them; a deleted asset leaves no row. */
export const assetsProjection: Projection = {
  name: 'assets',
  tables: ['read.assets'],
  migrations: [
    {
      name: 'assets/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.assets', ['purpose text NOT NULL'])};
        CREATE INDEX assets_list ON read.assets (merchant_id, environment, seq)`),
    },
  ],
  handles: ['asset.created', 'asset.uploaded', 'asset.completed', 'asset.deleted'],
  ...rowChangeProjection({ 'read.assets': ['id'] }, (event) => {
    const e = event as unknown as AssetEvent;
    if (e.type === 'asset.deleted') return [{ table: 'read.assets', key: { id: e.data.object.id }, delete: true }];
    const created = e.type === 'asset.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, purpose: e.data.purpose } : null;
    return [snapshotChange('read.assets', event, e.data.object, created)];
  }),
};

const ASSET_KEYS: readonly (keyof AssetObject)[] = ['id', 'object', 'name', 'purpose', 'contentType', 'size', 'sha256', 'status', 'uploadedSize', 'createdAt', 'uploadedAt', 'completedAt', 'livemode'];

const renderAsset = (stored: AssetObject) => orderKeys(stored, ASSET_KEYS);

export function findAsset(knex: Knex, owner: Owner, id: string): Promise<AssetObject | undefined> {
  return findOwnedObject(knex, 'read.assets', owner, id, renderAsset);
}

/** A merchant's asset in either environment, for the platform reading what the merchant gave it (an activation application's documents). */
export async function findMerchantAsset(knex: Knex, merchantId: string, id: string): Promise<AssetObject | undefined> {
  const row = await knex('read.assets').where({ id, merchant_id: merchantId }).first<{ object: AssetObject } | undefined>('object');
  return row ? renderAsset(row.object) : undefined;
}

/** This owner's assets, newest first, cursor-paged, by status and purpose. */
export function listAssets(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { status?: AssetStatus; purpose?: AssetPurpose }): Promise<CursorList<AssetObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.assets', owner, filters), cursor, url, renderAsset);
}

/** The id of this owner's logo: its `logo` asset completed last (at the same moment: declared last), the one the payer's pages show, if any. */
export async function findLogoId(knex: Knex, owner: Owner): Promise<string | undefined> {
  const row = await ownedRows(knex, 'read.assets', owner, { purpose: 'logo', status: 'ready' })
    // ISO 8601 times sort as text.
    .orderByRaw("object->>'completedAt' DESC")
    .orderBy('seq', 'desc')
    .first<{ id: string } | undefined>('id');
  return row?.id;
}
