import type { Knex } from 'knex';
import { toDisputeObject } from '../render.js';
import type { DisputeObject, DisputeStatus, EscrowEvent } from '../events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.escrow_disputes: each dispute of an escrow contract as its latest event left it. */
export const escrowDisputesProjection: Projection = {
  name: 'escrow_disputes',
  tables: ['read.escrow_disputes'],
  migrations: [
    {
      name: 'escrow_disputes/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.escrow_disputes', ['contract_id text NOT NULL'])};
        CREATE INDEX escrow_disputes_list ON read.escrow_disputes (merchant_id, environment, contract_id, seq)`),
    },
  ],
  handles: ['escrow_contract.dispute_opened', 'escrow_contract.dispute_resolved'],
  ...rowChangeProjection({ 'read.escrow_disputes': ['id'] }, (event) => {
    const e = event as unknown as Extract<EscrowEvent, { type: 'escrow_contract.dispute_opened' | 'escrow_contract.dispute_resolved' }>;
    const contract = e.data.object;
    const environment = contract.livemode ? 'live' : 'sandbox';
    const object = toDisputeObject(e.data.dispute, { environment });
    const created = e.type === 'escrow_contract.dispute_opened' ? { merchant_id: event.metadata.merchant_id!, environment, contract_id: contract.id } : null;
    return [snapshotChange('read.escrow_disputes', event, object, created)];
  }),
};

export function findEscrowDispute(knex: Knex, owner: Owner, id: string): Promise<DisputeObject | undefined> {
  return findOwnedObject<DisputeObject>(knex, 'read.escrow_disputes', owner, id, (d) => d);
}

/** The disputes of one contract, newest first, cursor-paged, by status. */
export function listEscrowDisputes(knex: Knex, owner: Owner, contractId: string, cursor: CursorQuery, url: string, filters: { status?: DisputeStatus }): Promise<CursorList<DisputeObject>> {
  return cursorPageOfObjects<DisputeObject>(ownedRows(knex, 'read.escrow_disputes', owner, { contract_id: contractId, ...filters }), cursor, url, (d) => d);
}

export async function contractOfDispute(knex: Knex, owner: Owner, id: string): Promise<string | undefined> {
  const row = await ownedRows(knex, 'read.escrow_disputes', owner).where({ id }).select('contract_id').first<{ contract_id: string } | undefined>();
  return row?.contract_id;
}
