import type { Knex } from 'knex';
import { toReleaseObject } from '../render.js';
import type { EscrowEvent, ReleaseObject, ReleaseStatus } from '../events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.escrow_releases: each release of an escrow contract as its latest event left it. */
export const escrowReleasesProjection: Projection = {
  name: 'escrow_releases',
  tables: ['read.escrow_releases'],
  migrations: [
    {
      name: 'escrow_releases/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.escrow_releases', ['contract_id text NOT NULL'])};
        CREATE INDEX escrow_releases_list ON read.escrow_releases (merchant_id, environment, contract_id, seq)`),
    },
  ],
  handles: ['escrow_contract.release_created', 'escrow_contract.release_executed', 'escrow_contract.release_canceled', 'escrow_contract.release_returned'],
  ...rowChangeProjection({ 'read.escrow_releases': ['id'] }, (event) => {
    const e = event as unknown as Extract<EscrowEvent, { type: 'escrow_contract.release_created' | 'escrow_contract.release_executed' | 'escrow_contract.release_canceled' | 'escrow_contract.release_returned' }>;
    const contract = e.data.object;
    const object = toReleaseObject(e.data.release, { environment: contract.livemode ? 'live' : 'sandbox', currency: contract.currency });
    const merchantId = event.metadata.merchant_id!;
    const created = e.type === 'escrow_contract.release_created' ? { merchant_id: merchantId, environment: contract.livemode ? 'live' : 'sandbox', contract_id: contract.id } : null;
    return [snapshotChange('read.escrow_releases', event, object, created)];
  }),
};

export function findEscrowRelease(knex: Knex, owner: Owner, id: string): Promise<ReleaseObject | undefined> {
  return findOwnedObject<ReleaseObject>(knex, 'read.escrow_releases', owner, id, (r) => r);
}

/** The releases of one contract, newest first, cursor-paged, by status. */
export function listEscrowReleases(knex: Knex, owner: Owner, contractId: string, cursor: CursorQuery, url: string, filters: { status?: ReleaseStatus }): Promise<CursorList<ReleaseObject>> {
  return cursorPageOfObjects<ReleaseObject>(ownedRows(knex, 'read.escrow_releases', owner, { contract_id: contractId, ...filters }), cursor, url, (r) => r);
}

export async function contractOfRelease(knex: Knex, owner: Owner, id: string): Promise<string | undefined> {
  const row = await ownedRows(knex, 'read.escrow_releases', owner).where({ id }).select('contract_id').first<{ contract_id: string } | undefined>();
  return row?.contract_id;
}
