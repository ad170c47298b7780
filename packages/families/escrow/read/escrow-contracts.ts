import type { Knex } from 'knex';
import type { ContractObject, ContractStatus, EscrowEvent } from '../events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** Every event of an escrow contract's stream: each carries the contract as it left it. */
export const ESCROW_CONTRACT_EVENTS: readonly EscrowEvent['type'][] = [
  'escrow_contract.created',
  'escrow_contract.funding_submitted',
  'escrow_contract.funded',
  'escrow_contract.participant_added',
  'escrow_contract.milestone_added',
  'escrow_contract.milestone_completed',
  'escrow_contract.release_created',
  'escrow_contract.release_executed',
  'escrow_contract.release_canceled',
  'escrow_contract.release_returned',
  'escrow_contract.refunded',
  'escrow_contract.dispute_opened',
  'escrow_contract.dispute_resolved',
  'escrow_contract.canceled',
];

/** read.escrow_contracts: each contract as its latest event left it, with the payment intent that funds it. */
export const escrowContractsProjection: Projection = {
  name: 'escrow_contracts',
  tables: ['read.escrow_contracts'],
  migrations: [
    {
      name: 'escrow_contracts/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.escrow_contracts', ['currency text NOT NULL', 'payment_intent_id text'])};
        CREATE INDEX escrow_contracts_list ON read.escrow_contracts (merchant_id, environment, seq);
        CREATE INDEX escrow_contracts_funding ON read.escrow_contracts (payment_intent_id) WHERE payment_intent_id IS NOT NULL`),
    },
  ],
  handles: ESCROW_CONTRACT_EVENTS,
  ...rowChangeProjection({ 'read.escrow_contracts': ['id'] }, (event) => {
    const e = event as unknown as EscrowEvent;
    const object = e.data.object;
    const created = e.type === 'escrow_contract.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, currency: e.data.currency } : null;
    const snapshot = snapshotChange('read.escrow_contracts', event, object, created);
    if (e.type !== 'escrow_contract.funding_submitted') return [snapshot];
    return [snapshot, { table: 'read.escrow_contracts', key: { id: object.id }, set: { payment_intent_id: e.data.paymentIntentId } }];
  }),
};

export function findEscrowContract(knex: Knex, owner: Owner, id: string): Promise<ContractObject | undefined> {
  return findOwnedObject<ContractObject>(knex, 'read.escrow_contracts', owner, id, (c) => c);
}

/** This owner's contracts, newest first, cursor-paged, by status. */
export function listEscrowContracts(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { status?: ContractStatus }): Promise<CursorList<ContractObject>> {
  return cursorPageOfObjects<ContractObject>(ownedRows(knex, 'read.escrow_contracts', owner, filters), cursor, url, (c) => c);
}

/** The contract waiting for this payment intent's funds, if any (its payment is posted to escrow). */
export async function escrowContractFundedBy(knex: Knex, owner: Owner, paymentIntentId: string): Promise<string | undefined> {
  const row = await ownedRows(knex, 'read.escrow_contracts', owner).where({ payment_intent_id: paymentIntentId }).select('id', 'status').first<{ id: string; status: ContractStatus } | undefined>();
  return row?.id;
}
