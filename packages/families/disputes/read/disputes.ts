import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { DisputeEvent, DisputeObject, DisputeStatus } from '../events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.disputes: card disputes as their latest event left them (docs/disputes.md). */
export const disputesProjection: Projection = {
  name: 'disputes',
  tables: ['read.disputes'],
  migrations: [
    {
      name: 'disputes/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.disputes', ['payment_intent text NOT NULL'])};
        CREATE INDEX disputes_list ON read.disputes (merchant_id, environment, seq)`),
    },
  ],
  handles: ['dispute.created', 'dispute.updated', 'dispute.closed'],
  ...rowChangeProjection({ 'read.disputes': ['id'] }, (event) => {
    const e = event as unknown as DisputeEvent & { data: { object: DisputeObject } };
    const created = e.type === 'dispute.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, payment_intent: e.data.paymentIntentId } : null;
    return [snapshotChange('read.disputes', event, e.data.object, created)];
  }),
};

const DISPUTE_KEYS: readonly (keyof DisputeObject)[] = ['id', 'object', 'livemode', 'status', 'reason', 'amount', 'currency', 'fee', 'shortfall', 'payment_intent', 'evidence_due_by', 'evidence', 'created', 'closed_at'];

const renderDispute = (stored: DisputeObject) => orderKeys(stored, DISPUTE_KEYS);

export function findDispute(knex: Knex, owner: Owner, id: string): Promise<DisputeObject | undefined> {
  return findOwnedObject(knex, 'read.disputes', owner, id, renderDispute);
}

/** This owner's disputes, newest first, cursor-paged, by status and payment. */
export function listDisputes(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { status?: DisputeStatus; payment_intent?: string }): Promise<CursorList<DisputeObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.disputes', owner, filters), cursor, url, renderDispute);
}
